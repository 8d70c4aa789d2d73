// Structured JSON logs (pino); secrets in headers never reach them.
import { pino } from 'pino';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export const createLogger = (level = process.env.LOG_LEVEL ?? 'info'): Logger => {
  const base = pino({ level, redact: ['req.headers["x-api-key"]', 'loginAccountPassword'] });
  return {
    info: (m) => base.info(m),
    warn: (m) => base.warn(m),
    error: (m, e) => base.error({ err: e }, m),
  };
};

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
