// The investor program's answers (spec: /investorProgram/traders...; the spec does not show the
// members of its DTOs, so InvestorProgramTraderDTO is ours): a trader's public data only.
import { Type } from '@sinclair/typebox';
import { ScoreBreakdownDTO } from '../analytics/schemas.js';
import { IsoDateTime, Uuid } from '../shared/schemas.js';

export const TraderIdParams = Type.Object({ traderId: Uuid }, { additionalProperties: false });

export const InvestorProgramTraderDTO = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: "the trader id: its FeatureTraderDTO's id (never the account's)" }),
    name: Type.String({ description: "the name the trader chose (FeatureTraderDTO.name), else 'Trader' and the start of its id" }),
    description: Type.String({ description: 'FeatureTraderDTO.description' }),
    since: IsoDateTime,
    accountType: Type.Object({ id: Type.Integer(), name: Type.String() }, { description: "AccountTypeDTO: the trader's platform type" }),
    currency: Type.String({ description: 'the account currency, as performanceMetrics answers it' }),
    makeHistoryPublic: Type.Boolean({ description: 'whether history/positions answers' }),
    score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: "performanceMetrics' score over the trader's whole history (GET /accounts/{accountId}/performanceMetrics without dates)",
    }),
    scoreBreakdown: ScoreBreakdownDTO,
  },
  { $id: 'InvestorProgramTraderDTO', additionalProperties: false, description: "Ours: an approved trader's public data (the spec does not show its members)." },
);
