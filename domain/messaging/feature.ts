// The messaging connector's two features (spec "Feature DTOs": FeatureMessagingAccountDTO,
// FeatureMessagingConnectorDTO; volume modes; AI tiers; "Limits": connectorIndex 1 to 9). The reference
// document has neither; the spec names the members below without types or bounds, so those are ours
// (README "Messaging connector", the OpenAPI descriptions):
//   - FeatureMessagingAccountDTO: a chat account the service reads with (a Telegram or Discord bot, or
//     the built-in OFFLINE chat for a first start and tests). Its botToken is sealed at rest like a
//     webhook secret (AES-256-GCM, app/credentials.ts) and answered masked.
//   - FeatureMessagingConnectorDTO: one chat (or one forum topic of it) of a messaging account bound to
//     the trading account it is attached to: what is read there is filtered by the patterns, read by
//     the aiTier's parser, sized by volumeMode and traded on the account.
import { type Static, Type } from '@sinclair/typebox';
import safeRegex from 'safe-regex2';
import type { FeatureDefinition } from '../feature/definition.js';
import type { FeatureSetting } from '../feature/events.js';

export const MESSAGING_ACCOUNT = 'FeatureMessagingAccountDTO';
export const MESSAGING_CONNECTOR = 'FeatureMessagingConnectorDTO';

export const PLATFORMS = ['OFFLINE', 'TELEGRAM', 'DISCORD'] as const;
export type MessagingPlatform = (typeof PLATFORMS)[number];

export const VOLUME_MODES = ['FIXED', 'BALANCE_SCALED', 'RISK_PERCENT', 'RISK_AMOUNT', 'AI', 'MARGIN_PERCENT'] as const;
export type VolumeMode = (typeof VOLUME_MODES)[number];

export const AI_TIERS = ['BASIC', 'STANDARD', 'PRO'] as const;
export type AiTier = (typeof AI_TIERS)[number];

/** The spec: connectorIndex 1 to 9 per account. */
export const CONNECTOR_INDEX = { min: 1, max: 9 } as const;

/** Bounds of the patterns: how many, and how long each may be. */
export const PATTERN_LIMITS = { count: 20, length: 200 } as const;

/** How a sealed bot token is answered. */
export const BOT_TOKEN_MASK = '********';

const accountMembers = Type.Object({
  platform: Type.Union(
    PLATFORMS.map((p) => Type.Literal(p)),
    {
      description:
        'ours: the chat platform. OFFLINE (default) is the built-in chat of this service (messages posted with POST /messaging/accounts/{featureId}/chats/{chatId}/messages; for a first start and tests); TELEGRAM reads with a Telegram bot (getUpdates); DISCORD with a Discord bot (channel messages over REST)',
    },
  ),
  botToken: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], {
    description: `ours: the bot's token (TELEGRAM, DISCORD: required). Stored sealed (AES-256-GCM with CREDENTIALS_KEY) and answered as "${BOT_TOKEN_MASK}"; a PUT with "${BOT_TOKEN_MASK}", "" or null keeps the stored one. Ignored for OFFLINE`,
  }),
});
export type MessagingAccountSettings = Static<typeof accountMembers>;

export const messagingAccountFeature: FeatureDefinition<MessagingAccountSettings> = {
  type: MESSAGING_ACCOUNT,
  scopes: ['account', 'project'],
  multiple: true,
  members: accountMembers,
  defaults: { platform: 'OFFLINE', botToken: null },
  description:
    'A chat account the messaging connector reads with: a Telegram or Discord bot (botToken, sealed at rest, answered masked), or the built-in OFFLINE chat. GET /messaging/accounts/{featureId}/chats lists the chats it can read (MessagingChatDTO); a FeatureMessagingConnectorDTO binds one of them to a trading account.',
  check: (s) => (s.platform !== 'OFFLINE' && (s.botToken === null || s.botToken === '') ? `botToken is required for ${s.platform}` : null),
};

const pattern = Type.String({ minLength: 1, maxLength: PATTERN_LIMITS.length });

const connectorMembers = Type.Object({
  messagingAccountId: Type.String({
    format: 'uuid',
    description: "ours, required: the featureId of the FeatureMessagingAccountDTO (this account's or its project's) whose chat is read",
  }),
  chatId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'ours, required: the chat read, as MessagingChatDTO.chatId lists it (a Telegram chat id, a Discord channel id)',
  }),
  forumTopicId: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
    description: 'the forum topic read (a Telegram message_thread_id, a Discord thread id), as MessagingChatDTO lists it; null (default) = the whole chat',
  }),
  volumeMode: Type.Union(
    VOLUME_MODES.map((m) => Type.Literal(m)),
    {
      description:
        'how a signal is sized (default FIXED): FIXED = fixedVolume lots; BALANCE_SCALED = fixedVolume x balance / balanceReference; RISK_PERCENT = riskPercent of the balance at risk to the stop loss, RISK_AMOUNT = riskAmount at risk (both with the account-level FeatureRiskPerTradeDTO, and refused without a stop loss); AI = the lots the signal names (the model, or the BASIC parser reading "0.1 lot"), else fixedVolume; MARGIN_PERCENT = free margin x marginPercent / 100 / margin per lot (no stop loss needed). Every mode is capped by maxAllowedVolume and the symbol\'s maximum',
    },
  ),
  fixedVolume: Type.Number({ minimum: 0, maximum: 1000, description: 'ours: lots of FIXED, BALANCE_SCALED and AI without a suggestion (default 0.01)' }),
  balanceReference: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1_000_000_000,
    description: 'ours: the balance at which BALANCE_SCALED trades fixedVolume (default 10000, in the account currency)',
  }),
  riskPercent: Type.Number({ minimum: 0, maximum: 100, description: 'RISK_PERCENT: percent of the balance at risk per signal (default 0)' }),
  riskAmount: Type.Number({ minimum: 0, maximum: 1_000_000_000, description: 'RISK_AMOUNT: amount at risk per signal in the account currency (default 0)' }),
  marginPercent: Type.Number({
    minimum: 0,
    maximum: 100,
    description: 'MARGIN_PERCENT: lot = free margin x marginPercent / 100 / margin per lot (default 0); needs no stop loss',
  }),
  maxAllowedVolume: Type.Number({
    minimum: 0,
    maximum: 1_000_000,
    description:
      "ours: lots; caps every position a message opens, however it was sized (as the charting webhook's member). 0 (default) = no cap of ours; the symbol's maximum always applies",
  }),
  includePatterns: Type.Array(pattern, {
    maxItems: PATTERN_LIMITS.count,
    description: `case-insensitive regular expressions; when any is given, only a message matching one goes on to the parser. At most ${PATTERN_LIMITS.count} of at most ${PATTERN_LIMITS.length} characters; a pattern that can backtrack catastrophically is refused (400)`,
  }),
  excludePatterns: Type.Array(pattern, {
    maxItems: PATTERN_LIMITS.count,
    description:
      'case-insensitive regular expressions checked first: a message matching one is skipped before the parser (logged). Same bounds as includePatterns',
  }),
  aiTier: Type.Union(
    AI_TIERS.map((t) => Type.Literal(t)),
    {
      description:
        'the parser (default BASIC): BASIC = the built-in grammar parser, no model, no charge; STANDARD and PRO = the OpenAI-compatible chat-completions endpoint the operator configures (MESSAGING_MODEL_BASE_URL, MESSAGING_MODEL_STANDARD, MESSAGING_MODEL_PRO). Settable on creation only: a PUT keeps the stored tier, whatever it sends',
    },
  ),
  connectorIndex: Type.Union([Type.Integer({ minimum: CONNECTOR_INDEX.min, maximum: CONNECTOR_INDEX.max }), Type.Null()], {
    readOnly: true,
    description:
      'read-only: 1 to 9, the lowest free one among the account\'s connectors when added (a tenth is refused with 409 [CONNECTOR_LIMIT_REACHED]); appended to the comment of every position a message opens ("chat C3"). A value sent is ignored',
  }),
  contextMessageCount: Type.Integer({
    minimum: 0,
    maximum: 20,
    description: 'STANDARD and PRO: how many earlier messages of the chat the model sees as context (default 3, at most 20); BASIC reads none',
  }),
});
export type MessagingConnectorSettings = Static<typeof connectorMembers>;

export const MESSAGING_CONNECTOR_DEFAULTS: Partial<MessagingConnectorSettings> = {
  forumTopicId: null,
  volumeMode: 'FIXED',
  fixedVolume: 0.01,
  balanceReference: 10_000,
  riskPercent: 0,
  riskAmount: 0,
  marginPercent: 0,
  maxAllowedVolume: 0,
  includePatterns: [],
  excludePatterns: [],
  aiTier: 'BASIC',
  connectorIndex: null,
  contextMessageCount: 3,
};

/** Why a pattern cannot be used, or null: it must compile and must not backtrack catastrophically. */
export const patternProblem = (source: string): string | null => {
  if (source.length > PATTERN_LIMITS.length) return `is longer than ${PATTERN_LIMITS.length} characters`;
  try {
    new RegExp(source, 'i');
  } catch (error) {
    return `is not a regular expression: ${(error as Error).message}`;
  }
  // safe-regex2 counts star height and repetitions; lookbehind and backreferences are refused too.
  if (!safeRegex(source) || /\\[1-9]|\(\?<[=!]/.test(source))
    return 'can backtrack catastrophically (nested or repeated quantifiers, backreferences); write it without them';
  return null;
};

const checkConnector = (s: MessagingConnectorSettings): string | null => {
  for (const [name, list] of [
    ['includePatterns', s.includePatterns],
    ['excludePatterns', s.excludePatterns],
  ] as const) {
    for (const [i, p] of list.entries()) {
      const problem = patternProblem(p);
      if (problem) return `${name}[${i}] ${problem}`;
    }
  }
  if (s.volumeMode === 'RISK_PERCENT' && !(s.riskPercent > 0)) return 'volumeMode RISK_PERCENT needs riskPercent above 0';
  if (s.volumeMode === 'RISK_AMOUNT' && !(s.riskAmount > 0)) return 'volumeMode RISK_AMOUNT needs riskAmount above 0';
  if (s.volumeMode === 'MARGIN_PERCENT' && !(s.marginPercent > 0)) return 'volumeMode MARGIN_PERCENT needs marginPercent above 0';
  if ((s.volumeMode === 'FIXED' || s.volumeMode === 'BALANCE_SCALED') && !(s.fixedVolume > 0)) return `volumeMode ${s.volumeMode} needs fixedVolume above 0`;
  return null;
};

export const messagingConnectorFeature: FeatureDefinition<MessagingConnectorSettings> = {
  type: MESSAGING_CONNECTOR,
  scopes: ['account'],
  multiple: true,
  members: connectorMembers,
  defaults: MESSAGING_CONNECTOR_DEFAULTS,
  stateMembers: ['connectorIndex'],
  description:
    'Trades from a chat: binds one chat (or forum topic, forumTopicId) of a FeatureMessagingAccountDTO (messagingAccountId) to this account. Every message read passes excludePatterns, then includePatterns, then the aiTier\'s parser (BASIC: the built-in grammar of the README, "Messaging connector"; STANDARD, PRO: the operator\'s OpenAI-compatible model with contextMessageCount earlier messages as context and a strict JSON answer). A signal opens positions sized by volumeMode (FIXED, BALANCE_SCALED, RISK_PERCENT, RISK_AMOUNT, AI, MARGIN_PERCENT) and capped by maxAllowedVolume, commented with connectorIndex; a reply or an edit to a signal message modifies or closes its trade ("close half", "move SL to entry"); a deleted message does nothing. Every message leaves a log entry (GET /accounts/{accountId}/messaging/logs). The trades are the account\'s own and are copied to its slaves like any other.',
  check: checkConnector,
};

/** The setting as answered (and as the audit log shows it): a bot token replaced by the mask. */
export const maskBotToken = (setting: FeatureSetting): FeatureSetting =>
  setting.type === MESSAGING_ACCOUNT && typeof setting.botToken === 'string' && setting.botToken !== '' ? { ...setting, botToken: BOT_TOKEN_MASK } : setting;

/** The comment a connector's positions carry: the message and the connector index, short enough for any broker (31 characters). */
export const positionCommentOf = (messageId: string, connectorIndex: number | null): string => `chat ${messageId.slice(-16)} C${connectorIndex ?? 0}`;
