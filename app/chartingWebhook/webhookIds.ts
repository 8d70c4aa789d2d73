// The secret of a charting webhook's address: 32 random bytes (256 bits), base64url (43 characters), so
// it can stand in a URL path and cannot be guessed; it authenticates alerts instead of an API key.
import { randomBytes } from 'node:crypto';

export const WEBHOOK_ID_BYTES = 32;

/** The shape of every issued webhookId: what the inbound route accepts before it looks one up. */
export const WEBHOOK_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const issueWebhookId = (): string => randomBytes(WEBHOOK_ID_BYTES).toString('base64url');
