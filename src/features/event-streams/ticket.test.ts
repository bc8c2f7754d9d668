import { describe, expect, it } from 'vitest';
import { parseTicket, signTicket, ticketSignatureValid, ticketWindow, ticketWindowOpen } from './ticket.js';

const HASH = 'hash-of-the-token=';
const ID = '0b6c9f7e-5a39-4a57-9d3e-1f0f7f1c2a11';

describe('stream tickets', () => {
  it('are deterministic per token, namespace and window, and differ when any of them does', () => {
    const t = signTicket('', HASH, ID, 'default', 7);
    expect(signTicket('', HASH, ID, 'default', 7)).toBe(t);
    expect(
      new Set([
        t,
        signTicket('', HASH, ID, 'other', 7),
        signTicket('', HASH, ID, 'default', 8),
        signTicket('', 'another-hash=', ID, 'default', 7),
        signTicket('secret', HASH, ID, 'default', 7),
      ]).size,
    ).toBe(5);
  });

  it('check only for their own namespace and key', () => {
    const parts = parseTicket(signTicket('s', HASH, ID, 'default', 7));
    if (parts === undefined) throw new Error('a ticket should parse');
    expect(parts).toMatchObject({ tokenId: ID, window: 7 });
    expect(ticketSignatureValid(parts, 's', HASH, 'default')).toBe(true);
    expect(ticketSignatureValid(parts, 's', HASH, 'defaulT')).toBe(false);
    expect(ticketSignatureValid(parts, '', HASH, 'default')).toBe(false);
    expect(ticketSignatureValid(parts, 's', 'x=', 'default')).toBe(false);
    expect(ticketSignatureValid({ ...parts, window: 8 }, 's', HASH, 'default')).toBe(false);
  });

  it.each(['', 'v1', 'v2.a.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'v1.a.1.short', 'v1.a b.1.x', 'Bearer x'])(
    'refuses %j as a ticket',
    (text) => {
      expect(parseTicket(text)).toBeUndefined();
    },
  );

  it('are open during their window and the next, and just before theirs begins (clock skew)', () => {
    const hour = 3_600_000;
    const now = 10 * hour + 1000;
    expect(ticketWindow(now, hour)).toBe(10);
    expect(ticketWindowOpen(10, now, hour)).toBe(true);
    expect(ticketWindowOpen(9, now, hour)).toBe(true);
    expect(ticketWindowOpen(8, now, hour)).toBe(false);
    expect(ticketWindowOpen(11, now, hour)).toBe(false);
    expect(ticketWindowOpen(11, 11 * hour - 5000, hour)).toBe(true);
  });
});
