import { describe, expect, it } from 'vitest';
import { highestRoleOn } from './highest-role.js';

describe('highestRoleOn', () => {
  const bindings = [
    { role: 'viewer', namespace: '*' },
    { role: 'editor', namespace: 'team-a' },
    { role: 'admin', namespace: 'team-b' },
  ] as const;

  it('is the highest role bound to the namespace or to *', () => {
    expect(highestRoleOn(bindings, 'team-a')).toBe('editor');
    expect(highestRoleOn(bindings, 'team-b')).toBe('admin');
    expect(highestRoleOn(bindings, 'elsewhere')).toBe('viewer');
  });

  it('outside any namespace, the highest role held anywhere', () => {
    expect(highestRoleOn(bindings, undefined)).toBe('admin');
  });

  it('is undefined where no binding reaches, and for no bindings at all', () => {
    expect(highestRoleOn([{ role: 'client', namespace: 'team-a' }], 'team-b')).toBeUndefined();
    expect(highestRoleOn([], undefined)).toBeUndefined();
    expect(highestRoleOn([], 'team-a')).toBeUndefined();
  });
});
