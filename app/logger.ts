// Structured JSON logs (pino); secrets in headers never reach them. Every component of the composition
// root logs through a child logger that names it (`component`), and callers may add fields of their
// own, so an operator can filter the service log by component, account or consumer.
import { pino, type Logger as Pino } from 'pino';

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, error?: unknown, fields?: LogFields): void;
  /** A logger that adds `bindings` to every line (pino's child logger). */
  child(bindings: LogFields): Logger;
}

const wrap = (base: Pino): Logger => ({
  info: (m, fields) => (fields ? base.info(fields, m) : base.info(m)),
  warn: (m, fields) => (fields ? base.warn(fields, m) : base.warn(m)),
  error: (m, e, fields) => base.error({ ...fields, err: e }, m),
  child: (bindings) => wrap(base.child(bindings)),
});

export const createLogger = (level = process.env.LOG_LEVEL ?? 'info'): Logger =>
  wrap(pino({ level, redact: ['req.headers["x-api-key"]', 'loginAccountPassword'] }));

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silentLogger };
