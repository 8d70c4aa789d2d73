// MarketplaceDTO as the reference writes it (`signals`: a list of FeatureDTO, the providers'
// FeatureSignalProviderDTO features), each with our members beside the reference's: rank, score and
// scoreBreakdown (what the order is made of).
import { Type } from '@sinclair/typebox';
import { ScoreBreakdownDTO } from '../analytics/schemas.js';
import { FeatureSettingDTO, FeatureTypeDTO } from '../features/schemas.js';
import { IsoDateTime, Uuid } from '../shared/schemas.js';

export const MarketplaceSignalDTO = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the signal provider id (its FeatureSignalProviderDTO id): the signalProviderId a follower follows' }),
    featureId: Type.String({ format: 'uuid', description: 'the same as id' }),
    type: FeatureTypeDTO,
    accountId: Type.Optional(Type.String({ format: 'uuid', description: "never answered here: the provider's account is not public" })),
    copierId: Type.Optional(Type.String({ format: 'uuid', description: 'never answered here' })),
    projectId: Type.Optional(Type.String({ format: 'uuid', description: "never answered here: the provider's project is not public" })),
    setting: FeatureSettingDTO,
    created: IsoDateTime,
    updated: IsoDateTime,
    rank: Type.Integer({ minimum: 1, description: 'ours: 1 for the best score' }),
    score: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        description:
          "ours: the score of the provider account's performance metrics over its whole history (GET /accounts/{accountId}/performanceMetrics); left out when the caller's white label has showScoreOnMarketplace false",
      }),
    ),
    scoreBreakdown: Type.Optional(ScoreBreakdownDTO),
  },
  {
    $id: 'MarketplaceSignalDTO',
    additionalProperties: false,
    description:
      'A FeatureDTO of a listed provider, public data only: accountId, copierId and projectId are never answered; in the setting, allowCustomers and subscribers empty, no customerId, and the copier without its id, accounts and strategies. rank, score and scoreBreakdown are ours.',
  },
);

export const MarketplaceDTO = Type.Object(
  { signals: Type.Array(MarketplaceSignalDTO, { description: 'the providers in the marketplace, best first' }) },
  { $id: 'MarketplaceDTO', additionalProperties: false },
);

export const SignalProviderIdParams = Type.Object({ signalProviderId: Uuid }, { additionalProperties: false });
