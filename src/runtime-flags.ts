// The Node.js options the `vexil` program runs with (ADR 0008). They size V8's heap, so they must be
// given when the process starts: V8 ignores them once the heap exists. The shebang of main.ts and the
// `start` script in package.json carry them, bench/run.ts starts the server with them, and
// runtime-flags.test.ts checks that the three agree.
//
// --max-semi-space-size=8 (MiB; Node's default here is 16): the young generation commits two
// semi-spaces, so this keeps 16 MiB less resident, which holds a 10,000-flag server under 200 MiB
// without forcing extra full collections. Its CPU cost measured nil: single, batch and OFREP bulk
// evaluations within ±2 % of the default, sharing a core (at 4 MiB they were 13–22 % slower).

export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
