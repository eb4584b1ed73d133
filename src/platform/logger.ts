import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs (pino). Secrets are redacted wherever they appear in a log
 * object; tokens are never logged whole.
 */
export function createLogger(opts: { level: string; name?: string; destination?: pino.DestinationStream }): Logger {
  const options: pino.LoggerOptions = {
    name: opts.name ?? 'cotaverde',
    level: opts.level,
    redact: {
      paths: [
        'password',
        '*.password',
        'newPassword',
        '*.newPassword',
        'token',
        '*.token',
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'card_token',
        '*.card_token',
        'accessToken',
        '*.accessToken',
        'config.appSecret',
      ],
      censor: '[redacted]',
    },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // destination: tests capture the lines; default is stdout.
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
