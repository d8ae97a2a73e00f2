// Structured JSON logs (pino); the request id is bound per request by the gateway.
import pino, { type Logger } from 'pino';
import type { Config } from './index';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel'>, name = 'content-platform'): Logger {
  return pino({
    name,
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.password', '*.token'],
      censor: '[redacted]',
    },
  });
}
