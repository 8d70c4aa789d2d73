// The messaging connector's configuration (README "Messaging connector"): environment variables,
// checked at start with the others (app/config.ts).
import { ConfigError } from '../config.js';

export interface MessagingConfig {
  /** How often the reader polls every messaging account (MESSAGING_POLL_INTERVAL_MS, default 2000). */
  readonly pollIntervalMs: number;
  /** Another Bot API server for Telegram bots (a local Bot API server; the specs' fake). */
  readonly telegramApiRoot: string | null;
  /** Another REST root for Discord bots (the specs' fake), without the version: http://host/api. */
  readonly discordApiRoot: string | null;
  /** The OpenAI-compatible endpoint of STANDARD and PRO (https://api.openai.com/v1, a local model's /v1). */
  readonly modelBaseUrl: string | null;
  readonly modelApiKey: string | null;
  readonly standardModel: string;
  readonly proModel: string;
  /** How long a model may take to answer. */
  readonly modelTimeoutMs: number;
}

const url = (name: string, value: string | undefined): string | null => {
  const text = value?.trim();
  if (!text) return null;
  try {
    const parsed = new URL(text);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new ConfigError(`${name} must be an http or https URL, got "${text}"`);
  }
  return text.replace(/\/+$/, '');
};

const integer = (name: string, value: string | undefined, fallback: number, min: number, max: number): number => {
  if (value === undefined || value.trim() === '') return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return Number(value);
};

export const loadMessagingConfig = (env: NodeJS.ProcessEnv): MessagingConfig => ({
  pollIntervalMs: integer('MESSAGING_POLL_INTERVAL_MS', env.MESSAGING_POLL_INTERVAL_MS, 2000, 50, 600_000),
  telegramApiRoot: url('MESSAGING_TELEGRAM_API_ROOT', env.MESSAGING_TELEGRAM_API_ROOT),
  discordApiRoot: url('MESSAGING_DISCORD_API_ROOT', env.MESSAGING_DISCORD_API_ROOT),
  modelBaseUrl: url('MESSAGING_MODEL_BASE_URL', env.MESSAGING_MODEL_BASE_URL),
  modelApiKey: env.MESSAGING_MODEL_API_KEY?.trim() || null,
  standardModel: env.MESSAGING_MODEL_STANDARD?.trim() || 'gpt-4o-mini',
  proModel: env.MESSAGING_MODEL_PRO?.trim() || 'gpt-4o',
  modelTimeoutMs: integer('MESSAGING_MODEL_TIMEOUT_MS', env.MESSAGING_MODEL_TIMEOUT_MS, 20_000, 100, 300_000),
});
