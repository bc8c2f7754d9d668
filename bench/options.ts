// Reading a bench script's `--name value` / `--name=value` options, shared by run.ts and compare.ts so
// both read (and refuse) an option the same way.

export interface OptionReaders {
  /** The option's value, or undefined when it is not given. */
  get(name: string): string | undefined;
  /** The option as an integer of at least `min`, or `fallback` when it is not given. */
  int(name: string, fallback: number, min: number): number;
}

export function optionReaders(argv: string[]): OptionReaders {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i >= 0) return argv[i + 1];
    return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  const int = (name: string, fallback: number, min: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${raw}"`);
    return n;
  };
  return { get, int };
}
