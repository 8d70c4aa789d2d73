// Schemas of the signal operations, and the CopierDTO member of the two signal feature settings.
import { type TSchema, Type } from '@sinclair/typebox';
import { CopierUpdateDTO } from '../copiers/schemas.js';
import { Uuid } from '../shared/schemas.js';

/**
 * The `copier` member of FeatureSignalProviderDTO and FeatureSignalFollowerDTO is a CopierDTO: declared
 * here (the domain definition leaves it an open object, the API knows the copier's schema) as the body
 * PUT /accounts/{accountId}/copiers/{copierId} takes: every member optional, id, created, fromAccountAlias
 * and toAccountId read-only; fromAccountId, fromStrategyId and toStrategyId are not used.
 */
const echo = (schema: TSchema) => Type.Optional({ ...schema, readOnly: true, description: 'read-only; ignored when sent, not answered' });
const SignalCopier = {
  ...CopierUpdateDTO,
  properties: {
    ...CopierUpdateDTO.properties,
    id: echo(Uuid),
    toAccountId: echo(Uuid),
    fromAccountAlias: echo(Type.String()),
    fromStrategyName: echo(Type.String()),
  },
  title: undefined,
  description:
    "CopierDTO. A provider's: the settings every follower's copier starts from (fromAccountId is the provider's account; strategy members are not used). A follower's: its own settings over the provider's, only those the provider's allowedOverrideFields allow. Members left out take the copier's defaults (provider) or the provider's value (follower).",
} as unknown as TSchema;

export const SIGNAL_SETTING_MEMBERS: Readonly<Record<string, Readonly<Record<string, TSchema>>>> = {
  FeatureSignalProviderDTO: { copier: SignalCopier },
  FeatureSignalFollowerDTO: { copier: SignalCopier },
};
