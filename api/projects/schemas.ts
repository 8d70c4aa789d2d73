// ProjectDTO as the reference declares it, with the spec's `billingRegion` (1.2.6) and our `created`.
import { Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH, UAE_EMIRATES } from '../../domain/project/settings.js';
import { CurrencyTypeDTO } from '../types/schemas.js';
import { Nullable, Uuid } from '../shared/schemas.js';
import { CustomerDTO } from '../customers/schemas.js';

const text = (description?: string) => Type.String({ maxLength: MAX_TEXT_LENGTH, ...(description ? { description } : {}) });

const settingsMembers = {
  name: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }),
  billingName: text(),
  billingCompanyName: text(),
  billingStreet: text(),
  billingPostcode: text(),
  billingCity: text(),
  billingCountry: text(),
  billingCountryIsoAlpha2: text("ISO 3166-1 alpha-2 (DE, AE), answered in upper case; '' while not given"),
  billingIdentification: text('a tax or company number'),
  currencyType: CurrencyTypeDTO,
  dedicated: Type.Boolean({
    default: false,
    description: 'Set when a project is created, read-only after that: a PUT must send the value the project has (400 [VALIDATION_FAILED] otherwise).',
  }),
};

const billingRegion = Nullable(
  Type.String({
    maxLength: MAX_TEXT_LENGTH,
    description: `ISO 3166-2 subdivision code without the country prefix (DU, not AE-DU), answered in upper case. Mandatory when billingCountryIsoAlpha2 is AE (one of ${UAE_EMIRATES.join(', ')}); optional otherwise; null while not given.`,
  }),
);

/** Read-only members of a ProjectDTO that a client may send back: ignored. */
const readOnlyEcho = {
  id: Type.Optional(Type.String({ description: 'read-only: ignored (the path names the project)' })),
  balance: Type.Optional(Type.Number({ description: 'read-only: ignored' })),
  blocked: Type.Optional(Type.Boolean({ description: 'read-only: ignored' })),
  owner: Type.Optional(Type.Unknown({ description: 'read-only: ignored' })),
  paymentMethod: Type.Optional(Type.Unknown({ description: 'read-only: ignored' })),
  created: Type.Optional(Type.String({ description: 'read-only: ignored' })),
};

const PaymentMethodDTO = Type.Object(
  {
    id: Type.Optional(Type.String({ format: 'uuid', readOnly: true })),
    type: Type.Optional(Type.String({ readOnly: true })),
    identifier: Type.Optional(Type.String({ readOnly: true })),
    number: Type.Optional(Type.String({ readOnly: true })),
    currency: Type.Optional(Type.String({ readOnly: true })),
    expirationDate: Type.Optional(Type.String({ readOnly: true })),
    status: Type.Optional(Type.Boolean({ readOnly: true })),
    statusMessage: Type.Optional(Type.String({ readOnly: true })),
    created: Type.Optional(Type.String({ format: 'date-time', readOnly: true })),
  },
  { $id: 'PaymentMethodDTO', description: 'Not answered yet: there are no payment methods before issue 23.', additionalProperties: false },
);

export const ProjectDTO = Type.Object(
  {
    id: Uuid,
    ...settingsMembers,
    billingRegion,
    balance: Type.Number({
      readOnly: true,
      description:
        "The sum of the project's transactions (GET /projects/{projectId}/transactions): 0, or negative while an invoice is owed. In the operator's price-list currency (TransactionDTO.currencyType), which currencyType (the project's own setting, stored) does not change.",
    }),
    blocked: Type.Boolean({
      readOnly: true,
      description:
        "true while the white-label operator blocks the customer who owns the project (PUT .../whitelabel/customers/block; lifted by .../unblock): the project's keys are then refused everywhere with 403 [CUSTOMER_BLOCKED] except GET /projects/{projectId}, which answers this. false for every other project.",
    }),
    owner: Type.Optional(CustomerDTO),
    paymentMethod: Type.Optional(PaymentMethodDTO),
    created: Type.String({ format: 'date-time', readOnly: true, description: 'Ours: when the project was created' }),
  },
  {
    $id: 'ProjectDTO',
    additionalProperties: false,
    description: 'paymentMethod is not answered: there are no payment methods yet (issue 23). owner is left out while the project has none recorded.',
  },
);

/** The body of PUT /projects/{projectId}: the reference's required members, billingRegion, and the read-only ones (ignored). */
export const ProjectWriteDTO = Type.Object(
  { ...settingsMembers, billingRegion: Type.Optional(billingRegion), ...readOnlyEcho },
  { $id: 'ProjectWriteDTO', additionalProperties: false },
);

export const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });

export const ProjectDeletionDTO = Type.Object(
  {
    projectId: Uuid,
    deletedAccounts: Type.Integer({ minimum: 0, description: 'accounts this request deleted (those it stopped first included)' }),
    revokedKeys: Type.Integer({ minimum: 0, description: 'API keys this request revoked, its own included' }),
  },
  { $id: 'ProjectDeletionDTO', additionalProperties: false, description: 'Ours: what deleting the project ended. 0 and 0 when it was deleted already.' },
);

export const TraderDTO = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the trader: its account id' }),
    accountId: Uuid,
    alias: Nullable(Type.String()),
    featureId: Type.String({ format: 'uuid', description: 'the FeatureTraderDTO feature that gives the account its role' }),
    since: Type.String({ format: 'date-time', description: 'when the account became a trader' }),
  },
  { $id: 'TraderDTO', additionalProperties: false, description: "Ours: the spec does not show a trader's members." },
);
