import { describe, expect, it } from 'vitest';
import { documentNamespace } from './document-namespace.js';

describe('documentNamespace', () => {
  it.each([
    ['a plain key', 'version: "1.2"\nnamespace: prod\nflags: []\n', 'prod'],
    ['a quoted key', "namespace: 'team-a' # ours\n", 'team-a'],
    ['1.4 block', 'version: "1.4"\nnamespace:\n  key: staging\n  name: Staging\nflags: []\n', 'staging'],
    ['1.4 flow map', 'namespace: {key: qa, name: QA}\n', 'qa'],
    ['JSON with a key', '{"version":"1.4","namespace":{"key":"prod","name":"Prod"},"flags":[]}\n', 'prod'],
    ['JSON with a string', '{"namespace":"dev"}', 'dev'],
    ['no namespace', 'flags: []\n', undefined],
    ['not a key', 'namespace: "a b"\n', undefined],
    ['broken JSON', '{"namespace":', undefined],
    ['a nested namespace key is not the document one', 'flags:\n  - namespace: x\n', undefined],
  ])('%s', (_name, text, expected) => {
    expect(documentNamespace(text)).toBe(expected);
  });
});
