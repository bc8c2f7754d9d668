import { describe, expect, it } from 'vitest';
import { diagnosticSignals, heapSnapshotSignal } from './diagnostic-signals.js';

const noReport = { reportOnSignal: false, signal: 'SIGUSR2' };

describe('diagnostic signals', () => {
  it('reads --heapsnapshot-signal in both spellings, the last one winning as in Node', () => {
    expect(heapSnapshotSignal(['--heapsnapshot-signal=SIGUSR2'])).toBe('SIGUSR2');
    expect(heapSnapshotSignal(['--max-semi-space-size=8', '--heapsnapshot-signal', 'SIGHUP'])).toBe('SIGHUP');
    expect(heapSnapshotSignal(['--heapsnapshot-signal=SIGUSR2', '--heapsnapshot-signal=SIGQUIT'])).toBe('SIGQUIT');
    expect(heapSnapshotSignal(['--heapsnapshot-near-heap-limit=2', ''])).toBeUndefined();
  });

  it('names the report signal only when reports on signal are on', () => {
    expect(diagnosticSignals([], noReport)).toEqual([]);
    expect(diagnosticSignals([], { reportOnSignal: true, signal: 'SIGUSR2' })).toEqual(['SIGUSR2']);
    expect(diagnosticSignals(['--heapsnapshot-signal=SIGUSR2'], { reportOnSignal: true, signal: 'SIGUSR2' })).toEqual([
      'SIGUSR2',
    ]);
    expect(diagnosticSignals(['--heapsnapshot-signal=SIGHUP'], noReport)).toEqual(['SIGHUP']);
  });
});
