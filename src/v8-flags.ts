// V8 settings of the `vexil` program, imported first by main.ts so they apply before the app allocates.
//
// --heap-growing-percent=50: after a snapshot load (10,000 flags: ~40 MiB kept, ~35 MiB of rows and
// maps thrown away) V8's default growth lets the old generation reach ~110 MiB before its first full
// GC, so that garbage sits in resident memory. Growing the heap by half instead of the default keeps
// a 10,000-flag server under 200 MiB (measured: ~219 → ~198 MiB after load, ~231 → ~197 MiB after a
// load test) with no measurable GC cost (--trace-gc pauses 1.4–1.6 µs per request against 1.6–1.9).
// It takes effect when set at run time; Node refuses it in NODE_OPTIONS.

import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--heap-growing-percent=50');
