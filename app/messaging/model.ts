// STANDARD and PRO: the operator's OpenAI-compatible chat-completions endpoint (MESSAGING_MODEL_BASE_URL;
// a local model's server works too) reads a message with `contextMessageCount` earlier messages as
// context and answers in a strict JSON schema (domain/messaging/modelAnswer.ts). The chat's text goes
// in as JSON data in the user turn, the rules in the system turn; the answer is bounded like BASIC's.
import OpenAI from 'openai';
import type { AiTier } from '../../domain/messaging/feature.js';
import { MODEL_ANSWER_SCHEMA, MODEL_INSTRUCTIONS, signalOfModelAnswer } from '../../domain/messaging/modelAnswer.js';
import type { ParsedSignal } from '../../domain/messaging/signal.js';
import type { MessagingConfig } from './config.js';

let client: { key: string; openai: OpenAI } | null = null;

const clientOf = (config: MessagingConfig): OpenAI | null => {
  if (!config.modelBaseUrl) return null;
  const key = `${config.modelBaseUrl} ${config.modelApiKey ?? ''}`;
  if (!client || client.key !== key) {
    client = { key, openai: new OpenAI({ baseURL: config.modelBaseUrl, apiKey: config.modelApiKey ?? 'none', maxRetries: 1, timeout: config.modelTimeoutMs }) };
  }
  return client.openai;
};

export const readWithModel = async (
  config: MessagingConfig,
  tier: Exclude<AiTier, 'BASIC'>,
  message: { readonly text: string; readonly context: readonly string[]; readonly isReply: boolean },
): Promise<ParsedSignal> => {
  const openai = clientOf(config);
  if (!openai) return { ok: false, reason: `aiTier ${tier} needs the operator's model endpoint (MESSAGING_MODEL_BASE_URL): none is configured` };
  let content: string | null | undefined;
  try {
    const answer = await openai.chat.completions.create({
      model: tier === 'PRO' ? config.proModel : config.standardModel,
      temperature: 0,
      messages: [
        { role: 'system', content: MODEL_INSTRUCTIONS },
        { role: 'user', content: JSON.stringify({ message: message.text, context: message.context, isReply: message.isReply }) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'chat_signal', strict: true, schema: MODEL_ANSWER_SCHEMA as unknown as Record<string, unknown> },
      },
    });
    const choice = answer.choices[0];
    if (choice?.message.refusal) return { ok: false, reason: `the model refused: ${choice.message.refusal.slice(0, 300)}` };
    content = choice?.message.content;
  } catch (error) {
    return { ok: false, reason: `the model did not answer: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}` };
  }
  if (!content) return { ok: false, reason: 'the model answered nothing' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return { ok: false, reason: "the model's answer is not JSON" };
  }
  return signalOfModelAnswer(parsed);
};
