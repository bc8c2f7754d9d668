// The process logger (pino): JSON by default, pretty console output only when asked. Secrets are
// redacted wherever they could appear in a logged object.

import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/schema.js';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.token',
  '*.clientToken',
  'clientToken',
  'password',
  'token',
];

export function createLogger(config: Config['log'], destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'vexil' },
  };
  if (destination) return pino(options, destination);
  if (config.encoding === 'console') {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(options);
}
