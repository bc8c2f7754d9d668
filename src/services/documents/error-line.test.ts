// Where a DocumentError points in a YAML source: the path's steps, and the line of the node (or of the
// nearest enclosing one when the field is missing), in the right document of a stream.

import { describe, expect, it } from 'vitest';
import { pathSteps, withLine, yamlLine } from './error-line.js';
import { DocumentError } from './errors.js';

const STREAM = [
  'namespace: one', // 1
  '---', // 2
  '# a comment-only document is skipped, as parse.ts skips it', // 3
  '---', // 4
  'namespace: two', // 5
  'flags:', // 6
  '  - key: ok', // 7
  '    name: OK', // 8
  '  - key: pricing-page', // 9
  '    rules:', // 10
  '      - segment: ""', // 11
  '      - distributions:', // 12
  '          - {variant: a, rollout: 5}', // 13
  'segments:', // 14
  '  - key: beta', // 15
  '    constraints:', // 16
  '      - {type: STRING_COMPARISON_TYPE, operator: near}', // 17
  '',
].join('\n');

describe('pathSteps', () => {
  it.each([
    ['flags[4] (pricing-page).rules[0].segment', ['flags', 4, 'rules', 0, 'segment']],
    ['segments[1] (beta).constraints[2].type', ['segments', 1, 'constraints', 2, 'type']],
    ['flags[0] (a).variants[1] (b).attachment', ['flags', 0, 'variants', 1, 'attachment']],
    ['version', ['version']],
    ['(document)', []],
    ['', []],
  ])('%s', (path, steps) => {
    expect(pathSteps(path)).toEqual(steps);
  });
});

describe('yamlLine', () => {
  it.each([
    [0, 'namespace', 1],
    [1, 'namespace', 5],
    [1, 'flags[1] (pricing-page).rules[0].segment', 11],
    [1, 'flags[1] (pricing-page).name', 9], // missing: where the flag starts
    [1, 'flags[1] (pricing-page).rules[1].segment', 12], // missing: where the rule starts
    [1, 'flags[1] (pricing-page).rules[1].distributions[0].rollout', 13],
    [1, 'segments[0] (beta).constraints[0]', 17],
    [1, '(document)', 5],
  ])('document %i, %s: line %i', (index, path, line) => {
    expect(yamlLine(STREAM, index, path)).toBe(line);
  });

  it('is undefined for a document the text does not have', () => {
    expect(yamlLine(STREAM, 2, 'flags')).toBeUndefined();
  });
});

describe('withLine', () => {
  const error = new DocumentError('f.yml', 1, 'flags[1] (pricing-page).rules[0].segment', 'must not be empty');

  it('adds the line to an error of a YAML source, in its message', () => {
    const located = withLine(error, [{ name: 'f.yml', text: STREAM, format: 'yaml' }]);
    expect((located as Error).message).toBe(
      'f.yml: document 2: flags[1] (pricing-page).rules[0].segment at line 11: must not be empty',
    );
  });

  it.each([
    ['a JSON source', [{ name: 'f.yml', text: '{}', format: 'json' as const }], error],
    ['another source', [{ name: 'g.yml', text: STREAM, format: 'yaml' as const }], error],
    ['another error', [{ name: 'f.yml', text: STREAM, format: 'yaml' as const }], new Error('x')],
  ])('leaves the error as it is for %s', (_name, sources, err) => {
    expect(withLine(err, sources)).toBe(err);
  });
});
