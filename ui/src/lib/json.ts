// JSON text checks for the attachment and metadata editors: validate as the user types, with the
// position of the first mistake.

export type JsonCheck = { ok: true; value: unknown } | { ok: false; error: string };

export function checkJson(text: string): JsonCheck {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const message = (err as Error).message;
    const pos = /position (\d+)/.exec(message);
    if (pos) {
      const index = Number(pos[1]);
      const before = text.slice(0, index);
      const line = before.split('\n').length;
      const column = index - before.lastIndexOf('\n');
      return {
        ok: false,
        error: `Invalid JSON at line ${line}, column ${column}: ${message.replace(/ in JSON at position.*$/, '')}`,
      };
    }
    return { ok: false, error: `Invalid JSON: ${message}` };
  }
}

export function prettyJson(text: string): string {
  if (!text) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function compactJson(text: string): string {
  return JSON.stringify(JSON.parse(text));
}
