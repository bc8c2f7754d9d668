// The namespace a Flipt document is for (`namespace: key`, or 1.4's `namespace: {key, name}`), read from
// its text without parsing YAML, so an import can name it up front for the server's role check (issue
// 41). A document naming none is for `default`; a second document's namespace is checked by the server
// once it has parsed them all.

const KEY = /^[-_a-zA-Z0-9]+$/;

function unquote(value: string): string {
  const trimmed = value.replace(/\s+#.*$/, '').trim();
  return trimmed.replace(/^(['"])(.*)\1$/, '$2');
}

function fromJson(text: string): string | undefined {
  const line = text.split('\n').find((l) => l.trim().startsWith('{'));
  if (!line) return undefined;
  try {
    const namespace = (JSON.parse(line) as { namespace?: unknown }).namespace;
    const key = typeof namespace === 'string' ? namespace : (namespace as { key?: unknown } | undefined)?.key;
    return typeof key === 'string' && KEY.test(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

function fromYaml(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l) => /^namespace:/.test(l));
  if (at < 0) return undefined;
  const rest = unquote((lines[at] as string).slice('namespace:'.length));
  if (rest.startsWith('{')) {
    const key = /\bkey:\s*['"]?([-_a-zA-Z0-9]+)/.exec(rest)?.[1];
    return key;
  }
  if (rest) return KEY.test(rest) ? rest : undefined;
  for (const line of lines.slice(at + 1)) {
    if (!/^\s/.test(line)) break;
    const key = /^\s+key:\s*(.*)$/.exec(line)?.[1];
    if (key !== undefined) {
      const value = unquote(key);
      return KEY.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** The key of the namespace the (first) document is for, when it names one. */
export function documentNamespace(text: string): string | undefined {
  return text.trimStart().startsWith('{') ? fromJson(text) : fromYaml(text);
}
