// The process logger (pino): JSON by default, pretty console output only when asked, to stdout or to
// `log.file`. Request logging is done once per request by telemetry/http.ts; nothing logs headers or
// bodies, and secrets are redacted wherever they could still appear in a logged object.

import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/schema.js';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  'authorization',
  '*.authorization',
  'password',
  '*.password',
  '*.*.password',
  'token',
  '*.token',
  '*.*.token',
  'clientToken',
  '*.clientToken',
  'secret',
  '*.secret',
  '*.signing_secret',
];

/** The `log` config section (its level is any case of pino's level names; the schema checks it). */
export interface LogConfig {
  level: string;
  encoding: Config['log']['encoding'];
  file?: string;
  /** Field names of a line's time, level and message (Flipt's log.keys); pino's own by default. */
  keys?: Partial<Config['log']['keys']>;
}

/** pino's own names for the time, level and message fields. */
const PINO_KEYS = { time: 'time', level: 'level', message: 'msg' };

export function createLogger(config: LogConfig, destination?: DestinationStream): Logger {
  const keys = { ...PINO_KEYS, ...config.keys };
  const options: pino.LoggerOptions = {
    level: String(config.level).toLowerCase(),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'vexil' },
    messageKey: keys.message,
  };
  // Only renamed fields get custom writers: pino's defaults are its fastest path.
  if (keys.time !== PINO_KEYS.time) {
    const prefix = `,${JSON.stringify(keys.time)}:`;
    options.timestamp = () => prefix + Date.now();
  }
  if (keys.level !== PINO_KEYS.level) {
    options.formatters = { level: (_label, number) => ({ [keys.level]: number }) };
  }
  if (destination) return pino(options, destination);
  const file = config.file ?? '';
  if (config.encoding === 'console') {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: {
          colorize: file === '' && process.stdout.isTTY === true,
          destination: file === '' ? 1 : file,
          mkdir: true,
          messageKey: keys.message,
          levelKey: keys.level,
          timestampKey: keys.time,
        },
      },
    });
  }
  if (file !== '') return pino(options, pino.destination({ dest: file, mkdir: true, sync: false }));
  return pino(options);
}
