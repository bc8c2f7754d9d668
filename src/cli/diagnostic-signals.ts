// Signals that Node.js itself answers with a diagnostic, which must therefore not stop the server.
// close-with-grace shuts down on SIGUSR2 among others, and SIGUSR2 is the signal Node's diagnostic
// report uses by default (`--report-on-signal`) and the one its docs use for heap snapshots
// (`--heapsnapshot-signal=SIGUSR2`): an operator asking a running server for a report or a heap
// snapshot would otherwise get the file and lose the server.

/** The value of `--heapsnapshot-signal` among Node options (command line or NODE_OPTIONS), if any. */
export function heapSnapshotSignal(nodeOptions: readonly string[]): string | undefined {
  let signal: string | undefined;
  for (let i = 0; i < nodeOptions.length; i++) {
    const option = nodeOptions[i] as string;
    if (option.startsWith('--heapsnapshot-signal=')) signal = option.slice('--heapsnapshot-signal='.length);
    else if (option === '--heapsnapshot-signal') signal = nodeOptions[++i];
  }
  return signal;
}

/** Signals that trigger one of Node's diagnostics in this process. */
export function diagnosticSignals(
  nodeOptions: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
  report: { reportOnSignal: boolean; signal: string } = process.report,
): string[] {
  const signals = new Set<string>();
  if (report.reportOnSignal) signals.add(report.signal);
  const heapSnapshot = heapSnapshotSignal(nodeOptions);
  if (heapSnapshot) signals.add(heapSnapshot);
  return [...signals];
}
