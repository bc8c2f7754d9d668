import { describe, expect, it } from 'vitest';
import { presentedToken } from './credentials.js';

describe('presentedToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    // RFC 9110: the scheme is case-insensitive and followed by one or more spaces.
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['bEaReR abc', 'abc'],
    ['Bearer   abc', 'abc'],
    // Not a Bearer credential at all: the request fails rather than falling back to the cookie.
    ['Bearerabc', ''],
    ['Bearer ', ''],
    ['Basic YWJj', ''],
    ['JWT abc', ''],
    ['', ''],
  ])('reads %j as %j', (authorization, token) => {
    expect(presentedToken({ authorization, cookie: 'flipt_client_token=from-cookie' })).toBe(token);
  });

  it('falls back to the cookie only without an Authorization header', () => {
    expect(presentedToken({ cookie: 'a=b; flipt_client_token=tok' })).toBe('tok');
    expect(presentedToken({})).toBeUndefined();
  });
});
