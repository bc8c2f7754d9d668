// The part of js-yaml (4.x, which ships no types) that parse.ts and error-line.ts use.

declare module 'js-yaml' {
  export interface Schema {
    readonly __schema: unique symbol;
  }
  export const CORE_SCHEMA: Schema;
  export interface LoadOptions {
    filename?: string;
    schema?: Schema;
    json?: boolean;
    /** Called as each node starts ('open') and once it is read ('close', with its value in `result`). */
    listener?: (event: 'open' | 'close', state: { line: number; position: number; result: unknown }) => void;
  }
  export class YAMLException extends Error {
    reason: string;
    mark?: { line: number; column: number };
  }
  export function loadAll(text: string, iterator?: null, options?: LoadOptions): unknown[];
}
