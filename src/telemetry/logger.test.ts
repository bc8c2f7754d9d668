// The process logger's Flipt options: log.keys renames a line's time, level and message fields, and
// log.grpc_level lets @grpc/grpc-js's own messages into the log (as `component: "grpc"` lines).

import { experimental, logVerbosity } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { routeGrpcLogs } from './grpc.js';
import { createLogger } from './logger.js';

function capture() {
  const raw: string[] = [];
  return {
    lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>),
    destination: { write: (line: string) => void raw.push(line) },
  };
}

describe('createLogger', () => {
  it("writes pino's time, level and msg fields by default", () => {
    const out = capture();
    createLogger({ level: 'info', encoding: 'json' }, out.destination).info({ a: 1 }, 'hello');
    const [line] = out.lines();
    expect(line).toMatchObject({ level: 30, msg: 'hello', a: 1, service: 'vexil' });
    expect(typeof line?.time).toBe('number');
  });

  it('names the fields as log.keys says (Flipt writes T, L and M)', () => {
    const out = capture();
    const keys = { time: 'T', level: 'L', message: 'M' };
    createLogger({ level: 'info', encoding: 'json', keys }, out.destination).warn({ a: 1 }, 'renamed');
    const [line] = out.lines();
    expect(line).toMatchObject({ L: 40, M: 'renamed', a: 1 });
    expect(typeof line?.T).toBe('number');
    expect(line).not.toHaveProperty('time');
    expect(line).not.toHaveProperty('level');
    expect(line).not.toHaveProperty('msg');
  });
});

describe('routeGrpcLogs', () => {
  afterEach(() => {
    // grpc-js's logger is process-wide: leave it writing nothing below ERROR, as by default.
    routeGrpcLogs(createLogger({ level: 'silent', encoding: 'json' }, { write: () => {} }), 'error');
  });

  it('logs grpc-js messages at log.grpc_level and above, whatever log.level is', () => {
    const out = capture();
    routeGrpcLogs(createLogger({ level: 'error', encoding: 'json' }, out.destination), 'info');
    experimental.log(logVerbosity.DEBUG, 'a debug detail');
    experimental.log(logVerbosity.INFO, 'channel %s ready', 'x');
    experimental.log(logVerbosity.ERROR, 'bind failed');
    expect(out.lines().map((l) => [l.component, l.level, l.msg])).toEqual([
      ['grpc', 30, 'channel x ready'],
      ['grpc', 50, 'bind failed'],
    ]);
  });

  it('keeps only errors at the default grpc_level, and nothing at fatal', () => {
    const out = capture();
    const logger = createLogger({ level: 'debug', encoding: 'json' }, out.destination);
    routeGrpcLogs(logger, 'error');
    experimental.log(logVerbosity.INFO, 'quiet');
    experimental.log(logVerbosity.ERROR, 'loud');
    routeGrpcLogs(logger, 'fatal');
    experimental.log(logVerbosity.ERROR, 'silenced');
    expect(out.lines().map((l) => l.msg)).toEqual(['loud']);
  });
});
