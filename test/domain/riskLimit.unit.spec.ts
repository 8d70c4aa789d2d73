// The risk limit aggregate's rules (domain/riskLimit/decider.ts and the member rules of
// domain/riskLimit/settings.ts), as given / when / then. Whether the account exists is checked before
// the command; what a limit measures and when it is hit are the protection specs'.
import { expect } from 'chai';
import type { RiskLimitCommand } from '../../domain/riskLimit/commands.js';
import { riskLimitDecider } from '../../domain/riskLimit/decider.js';
import type { RiskLimitEvent } from '../../domain/riskLimit/events.js';
import { RISK_LIMIT_DEFAULTS, type RiskLimitSettings } from '../../domain/riskLimit/settings.js';
import { systemContext } from '../../domain/shared/command.js';
import { givenDecider } from './givenDecider.js';

const NOW = '2026-03-02T09:30:00.000Z';
const EARLIER = '2026-03-01T08:00:00.000Z';
const LIMIT = '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const PROJECT = '22222222-2222-4222-8222-222222222222';
const OTHER_PROJECT = '33333333-3333-4333-8333-333333333333';
const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const OTHER_ACCOUNT = '66666666-6666-4666-8666-666666666666';
const metadata = { now: NOW, context: systemContext('spec') };

/** A daily limit (risk type 1) of 5 % (a fraction, 0.05) that closes every position when hit. */
const settings = (overrides: Partial<RiskLimitSettings> = {}): RiskLimitSettings => ({ ...RISK_LIMIT_DEFAULTS, riskTypeId: 1, riskLimit: 0.05, ...overrides });

const created = (overrides: Partial<RiskLimitSettings> = {}): RiskLimitEvent => ({
  type: 'RiskLimitCreated',
  data: { riskLimitId: LIMIT, projectId: PROJECT, accountId: ACCOUNT, settings: settings(overrides), at: EARLIER },
});
const updated = (overrides: Partial<RiskLimitSettings>, at = EARLIER): RiskLimitEvent => ({
  type: 'RiskLimitUpdated',
  data: { riskLimitId: LIMIT, accountId: ACCOUNT, settings: settings(overrides), at },
});
const deleted = (at = EARLIER): RiskLimitEvent => ({ type: 'RiskLimitDeleted', data: { riskLimitId: LIMIT, accountId: ACCOUNT, at } });

interface Reach {
  readonly projectId?: string;
  readonly accountId?: string;
}
const target = (reach: Reach) => ({ riskLimitId: LIMIT, projectId: PROJECT, accountId: ACCOUNT, ...reach });
const create = (overrides: Partial<RiskLimitSettings> = {}, copierId: string | null = null): RiskLimitCommand => ({
  type: 'CreateRiskLimit',
  data: { ...target({}), settings: settings(overrides), copierId },
  metadata,
});
const update = (overrides: Partial<RiskLimitSettings> = {}, reach: Reach = {}, copierId?: string | null): RiskLimitCommand => ({
  type: 'UpdateRiskLimit',
  data: { ...target(reach), settings: settings(overrides), ...(copierId === undefined ? {} : { copierId }) },
  metadata,
});
const COPIER = '77777777-7777-4777-8777-777777777777';
const remove = (reach: Reach = {}): RiskLimitCommand => ({ type: 'DeleteRiskLimit', data: target(reach), metadata });

/** given past events, when a command, then exactly these events, or a refusal with its code and kind. */
const given = givenDecider(riskLimitDecider);

/** The member a [VALIDATION_FAILED] refusal of these settings names, on create. */
const refusedMember = (overrides: Partial<RiskLimitSettings>): unknown =>
  given([]).when(create(overrides)).thenRefuses('[VALIDATION_FAILED]', 'validation').details?.field;

const createdAtNow = (overrides: Partial<RiskLimitSettings>, copierId: string | null = null): RiskLimitEvent[] => [
  { type: 'RiskLimitCreated', data: { riskLimitId: LIMIT, projectId: PROJECT, accountId: ACCOUNT, copierId, settings: settings(overrides), at: NOW } },
];

describe('risk limit decider', () => {
  describe('create', () => {
    it('creates a limit of the account with its settings, at the command time', () =>
      given([])
        .when(create({ absoluteRiskLimit: 250, active: false }))
        .then(createdAtNow({ absoluteRiskLimit: 250, active: false })));

    it('creates a limit scoped to one copier of the account (copierId), read-only afterwards', () => {
      given([]).when(create({}, COPIER)).then(createdAtNow({}, COPIER));
      const scoped: RiskLimitEvent = { type: 'RiskLimitCreated', data: { ...(created().data as object), copierId: COPIER } } as RiskLimitEvent;
      given([scoped])
        .when(update({ riskLimit: 0.1 }, {}, COPIER))
        .then([{ type: 'RiskLimitUpdated', data: { riskLimitId: LIMIT, accountId: ACCOUNT, settings: settings({ riskLimit: 0.1 }), at: NOW } }]);
      given([scoped])
        .when(update({ riskLimit: 0.1 }))
        .then([{ type: 'RiskLimitUpdated', data: { riskLimitId: LIMIT, accountId: ACCOUNT, settings: settings({ riskLimit: 0.1 }), at: NOW } }]);
      expect(
        given([scoped])
          .when(update({}, {}, null))
          .thenRefuses('[VALIDATION_FAILED]', 'validation').details?.field,
      ).to.equal('body.copierId');
      given([created()])
        .when(update({}, {}, COPIER))
        .thenRefuses('[VALIDATION_FAILED]', 'validation');
    });

    it('refuses a risk limit id that already exists, deleted or not, as a conflict', () => {
      given([created()]).when(create()).thenRefuses('[RISK_LIMIT_ALREADY_EXISTS]', 'conflict');
      given([created(), deleted()]).when(create()).thenRefuses('[RISK_LIMIT_ALREADY_EXISTS]', 'conflict');
    });

    it("accepts the reference's risk types 1 to 10 and ours 11 to 13, and refuses any other id", () => {
      given([])
        .when(create({ riskTypeId: 13 }))
        .then(createdAtNow({ riskTypeId: 13 }));
      expect(refusedMember({ riskTypeId: 0 })).to.equal('body.riskType.id');
      expect(refusedMember({ riskTypeId: 14 })).to.equal('body.riskType.id');
    });

    it('accepts a limit with every member 0: deactivated, it never acts (the reference: 0 = deactivated)', () =>
      given([])
        .when(create({ absoluteRiskLimit: 0, riskLimit: 0, relativeRiskLimit: 0 }))
        .then(createdAtNow({ absoluteRiskLimit: 0, riskLimit: 0, relativeRiskLimit: 0 })));

    it('takes riskLimit, relativeRiskLimit and their fallbacks as fractions: 0.05 is 5 %, above 1 is refused', () => {
      expect(refusedMember({ riskLimit: 5 })).to.equal('body.riskLimit');
      expect(refusedMember({ riskLimit: 1.01 })).to.equal('body.riskLimit');
      expect(refusedMember({ relativeRiskLimit: 3 })).to.equal('body.relativeRiskLimit');
      expect(refusedMember({ closeAllOpenPositions: false, fallbackRiskLimit: 8 })).to.equal('body.fallbackRiskLimit');
      given([])
        .when(create({ riskLimit: 1 }))
        .then(createdAtNow({ riskLimit: 1 }));
    });

    it('takes fulfillSeconds from 0 to a day, in whole seconds, and a resetTime that is a date-time', () => {
      expect(refusedMember({ fulfillSeconds: -1 })).to.equal('body.fulfillSeconds');
      expect(refusedMember({ fulfillSeconds: 1.5 })).to.equal('body.fulfillSeconds');
      expect(refusedMember({ fulfillSeconds: 86_401 })).to.equal('body.fulfillSeconds');
      expect(refusedMember({ resetTime: 'tomorrow' })).to.equal('body.resetTime');
      given([])
        .when(create({ fulfillSeconds: 0, resetTime: '2023-12-30T22:00:00.000Z' }))
        .then(createdAtNow({ fulfillSeconds: 0, resetTime: '2023-12-30T22:00:00.000Z' }));
    });

    it('accepts any one of the three limits on its own', () => {
      given([])
        .when(create({ riskLimit: 0, absoluteRiskLimit: 100 }))
        .then(createdAtNow({ riskLimit: 0, absoluteRiskLimit: 100 }));
      given([])
        .when(create({ riskLimit: 0, relativeRiskLimit: 0.03 }))
        .then(createdAtNow({ riskLimit: 0, relativeRiskLimit: 0.03 }));
    });

    it('keeps and ignores the fallbacks when the hit closes every position already (the reference: they apply only with closeAllOpenPositions false)', () =>
      given([])
        .when(create({ fallbackRiskLimit: 0.04, absoluteRiskLimit: 100, fallbackAbsoluteRiskLimit: 50 }))
        .then(createdAtNow({ fallbackRiskLimit: 0.04, absoluteRiskLimit: 100, fallbackAbsoluteRiskLimit: 50 })));

    it('refuses a fallback that is not above its own limit, when positions stay open', () => {
      expect(refusedMember({ closeAllOpenPositions: false, fallbackRiskLimit: 0.05 })).to.equal('body.fallbackRiskLimit');
      expect(refusedMember({ closeAllOpenPositions: false, absoluteRiskLimit: 100, fallbackAbsoluteRiskLimit: 99 })).to.equal('body.fallbackAbsoluteRiskLimit');
    });

    it('accepts a fallback above its limit, or one whose own limit is off, when positions stay open', () => {
      given([])
        .when(create({ closeAllOpenPositions: false, fallbackRiskLimit: 0.08 }))
        .then(createdAtNow({ closeAllOpenPositions: false, fallbackRiskLimit: 0.08 }));
      given([])
        .when(create({ closeAllOpenPositions: false, fallbackAbsoluteRiskLimit: 500 }))
        .then(createdAtNow({ closeAllOpenPositions: false, fallbackAbsoluteRiskLimit: 500 }));
    });
  });

  describe('update', () => {
    it('replaces the whole setting', () =>
      given([created()])
        .when(update({ riskTypeId: 4, riskLimit: 0.03, closeAllOpenPositions: false }))
        .then([updated({ riskTypeId: 4, riskLimit: 0.03, closeAllOpenPositions: false }, NOW)]));

    it('the same setting again, with members in another order, changes nothing', () => {
      const reordered = Object.fromEntries(Object.entries(settings()).reverse()) as unknown as RiskLimitSettings;
      given([created()])
        .when({ type: 'UpdateRiskLimit', data: { ...target({}), settings: reordered }, metadata })
        .then([]);
    });

    it('reads the setting as the last update left it', () => {
      given([created(), updated({ riskLimit: 0.07 })])
        .when(update({ riskLimit: 0.07 }))
        .then([]);
      given([created(), updated({ riskLimit: 0.07 })])
        .when(update())
        .then([updated({}, NOW)]);
    });

    it('checks the new setting by the same rules as a new limit', () => {
      given([created()])
        .when(update({ riskTypeId: 99 }))
        .thenRefuses('[VALIDATION_FAILED]', 'validation');
      given([created()])
        .when(update({ riskLimit: 5 }))
        .thenRefuses('[VALIDATION_FAILED]', 'validation');
      given([created()])
        .when(update({ fallbackRiskLimit: 0.04, closeAllOpenPositions: false }))
        .thenRefuses('[VALIDATION_FAILED]', 'validation');
    });
  });

  describe('delete', () => {
    it('deletes the limit', () =>
      given([created()])
        .when(remove())
        .then([deleted(NOW)]));

    it('a deleted limit is not found for an update or a second delete', () => {
      given([created(), deleted()])
        .when(update({ riskLimit: 0.07 }))
        .thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
      given([created(), deleted()]).when(remove()).thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
    });
  });

  describe('reach', () => {
    it('a limit that was never created is not found', () => {
      given([]).when(update()).thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
      given([]).when(remove()).thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
    });

    it("another project's limit is not found", () => {
      given([created()])
        .when(update({}, { projectId: OTHER_PROJECT }))
        .thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
      given([created()])
        .when(remove({ projectId: OTHER_PROJECT }))
        .thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
    });

    it('a limit is not found through another account', () => {
      given([created()])
        .when(update({}, { accountId: OTHER_ACCOUNT }))
        .thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
      given([created()])
        .when(remove({ accountId: OTHER_ACCOUNT }))
        .thenRefuses('[RISK_LIMIT_NOT_FOUND]', 'notFound');
    });
  });

  describe('evolve', () => {
    const fold = (events: readonly RiskLimitEvent[]) => events.reduce(riskLimitDecider.evolve, riskLimitDecider.initialState);

    it('folds creation, updates and deletion into the state', () => {
      expect(fold([created(), updated({ riskLimit: 0.07 }), updated({ riskLimit: 0.09, active: false })])).to.deep.equal({
        exists: true,
        deleted: false,
        projectId: PROJECT,
        accountId: ACCOUNT,
        copierId: null,
        settings: settings({ riskLimit: 0.09, active: false }),
      });
      expect(fold([created(), deleted()])).to.deep.include({ exists: true, deleted: true, accountId: ACCOUNT });
    });

    it('never changes the state it is given', () => {
      const state = fold([created()]);
      const snapshot = structuredClone(state);
      for (const event of [updated({ riskLimit: 0.07 }), deleted()]) riskLimitDecider.evolve(state, event);
      expect(state).to.deep.equal(snapshot);
    });
  });
});
