import { expect } from 'chai';
import type { AccountCommand } from '../../domain/account/commands.js';
import { type Account, decide, evolve, initialState } from '../../domain/account/decider.js';
import type { AccountEvent, AccountSettings } from '../../domain/account/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { systemContext } from '../../domain/shared/command.js';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const PROJECT = '22222222-2222-4222-8222-222222222222';
const OTHER_PROJECT = '33333333-3333-4333-8333-333333333333';
const T0 = '2026-01-05T10:00:00.000Z';

const settings: AccountSettings = {
  loginServer: 'Demo-01',
  loginAccountNumber: '1001',
  passwordCiphertext: 'v1:xyz',
  alias: 'Main',
  accountTypeId: 1,
  regionId: 1,
  propFirm: false,
  tradingDisabled: false,
  nativeMode: false,
  closeUnmanagedPositions: false,
  dedicatedIp: null,
  myHomeIp: null,
  labels: [],
  skipCredentialCheck: false,
  ctraderClientId: null,
  ctraderClientSecretCiphertext: null,
  proxy: null,
};

type Kind = AccountCommand['type'];
const command = (type: Kind, at = T0, extra: Record<string, unknown> = {}, projectId = PROJECT): AccountCommand =>
  ({ type, data: { accountId: ACCOUNT, projectId, ...extra }, metadata: { now: at, context: systemContext('test') } }) as AccountCommand;

const created: AccountEvent = { type: 'AccountCreated', data: { accountId: ACCOUNT, projectId: PROJECT, settings, at: T0 } };
const started: AccountEvent = { type: 'AccountStarted', data: { accountId: ACCOUNT, from: 1, at: T0 } };
const stopped: AccountEvent = { type: 'AccountStopped', data: { accountId: ACCOUNT, from: 2, at: T0 } };
const deleted: AccountEvent = { type: 'AccountDeleted', data: { accountId: ACCOUNT, from: 1, at: T0 } };

/** given past events, when a command, then events or an error code. */
const given = (events: AccountEvent[]) => {
  const state: Account = events.reduce(evolve, initialState);
  return {
    when: (cmd: AccountCommand) => ({
      then: (expected: { type: string; data?: object }[]) => {
        const out = decide(cmd, state);
        expect(out.map((e) => e.type)).to.deep.equal(expected.map((e) => e.type));
        expected.forEach((e, i) => e.data && expect(out[i]!.data).to.deep.include(e.data));
      },
      thenFails: (code: string) => {
        let caught: unknown;
        try {
          decide(cmd, state);
        } catch (error) {
          caught = error;
        }
        expect(caught).to.be.instanceOf(DomainError);
        expect((caught as DomainError).code).to.equal(code);
        return caught as DomainError;
      },
    }),
  };
};

describe('account decider', () => {
  describe('create', () => {
    it('creates an account in status New with the given settings', () =>
      given([])
        .when(command('CreateAccount', T0, { settings }))
        .then([{ type: 'AccountCreated', data: { settings, projectId: PROJECT } }]));
    it('refuses a region outside 1 to 4 with [REGION_NOT_FOUND]', () =>
      given([])
        .when(command('CreateAccount', T0, { settings: { ...settings, regionId: 5 } }))
        .thenFails('[REGION_NOT_FOUND]'));
    it('refuses an account type outside 1 to 17 with [ACCOUNT_TYPE_NOT_FOUND]', () =>
      given([])
        .when(command('CreateAccount', T0, { settings: { ...settings, accountTypeId: 0 } }))
        .thenFails('[ACCOUNT_TYPE_NOT_FOUND]'));
    it('refuses to create an account id twice', () =>
      given([created])
        .when(command('CreateAccount', T0, { settings }))
        .thenFails('[ACCOUNT_ALREADY_EXISTS]'));
    it('refuses half a cTrader application with [VALIDATION_FAILED] naming the member left out, and takes both or neither', () => {
      const withId = { ...settings, ctraderClientId: 'app-1' };
      const withSecret = { ...settings, ctraderClientSecretCiphertext: 'v1:sealed' };
      expect(
        given([])
          .when(command('CreateAccount', T0, { settings: withId }))
          .thenFails('[VALIDATION_FAILED]').message,
      ).to.match(/^ctraderClientSecret: /);
      expect(
        given([])
          .when(command('CreateAccount', T0, { settings: withSecret }))
          .thenFails('[VALIDATION_FAILED]').details,
      ).to.deep.equal({
        field: 'body.ctraderClientId',
      });
      given([])
        .when(command('CreateAccount', T0, { settings: { ...withId, ctraderClientSecretCiphertext: 'v1:sealed' } }))
        .then([{ type: 'AccountCreated' }]);
    });
  });

  describe('status transitions', () => {
    it('start moves New to Active', () =>
      given([created])
        .when(command('StartAccount'))
        .then([{ type: 'AccountStarted', data: { from: 1 } }]));
    it('start moves Stopped to Active', () =>
      given([created, started, stopped])
        .when(command('StartAccount'))
        .then([{ type: 'AccountStarted', data: { from: 3 } }]));
    it('start on an Active account changes nothing', () => given([created, started]).when(command('StartAccount')).then([]));
    it('stop moves Active to Stopped', () =>
      given([created, started])
        .when(command('StopAccount'))
        .then([{ type: 'AccountStopped', data: { from: 2 } }]));
    it('stop moves New to Stopped', () =>
      given([created])
        .when(command('StopAccount'))
        .then([{ type: 'AccountStopped', data: { from: 1 } }]));
    it('stop on a Stopped account changes nothing', () => given([created, started, stopped]).when(command('StopAccount')).then([]));
    it('delete moves any status to Deleted', () => {
      given([created])
        .when(command('DeleteAccount'))
        .then([{ type: 'AccountDeleted', data: { from: 1 } }]);
      given([created, started])
        .when(command('DeleteAccount'))
        .then([{ type: 'AccountDeleted', data: { from: 2 } }]);
    });
    it('delete on a Deleted account changes nothing', () => given([created, deleted]).when(command('DeleteAccount')).then([]));
    it('a deleted account refuses start, stop, update and reconnect', () => {
      for (const kind of ['StartAccount', 'StopAccount', 'ReconnectAccount'] as const) {
        given([created, deleted]).when(command(kind)).thenFails('[ACCOUNT_DELETED]');
      }
      given([created, deleted])
        .when(command('UpdateAccount', T0, { changes: { alias: 'x' } }))
        .thenFails('[ACCOUNT_DELETED]');
    });
    it('folds the status from the events', () => {
      expect([created].reduce(evolve, initialState).status).to.equal(1);
      expect([created, started].reduce(evolve, initialState).status).to.equal(2);
      expect([created, started, stopped].reduce(evolve, initialState).status).to.equal(3);
      expect([created, deleted].reduce(evolve, initialState).status).to.equal(4);
    });
  });

  describe('update', () => {
    it('records only the members that change', () =>
      given([created])
        .when(command('UpdateAccount', T0, { changes: { alias: 'Renamed', regionId: 1 } }))
        .then([{ type: 'AccountUpdated', data: { changes: { alias: 'Renamed' } } }]));
    it('an update that changes nothing produces no event', () =>
      given([created])
        .when(command('UpdateAccount', T0, { changes: { alias: 'Main' } }))
        .then([]));
    it('refuses an unknown region on update', () =>
      given([created])
        .when(command('UpdateAccount', T0, { changes: { regionId: 9 } }))
        .thenFails('[REGION_NOT_FOUND]'));
    it('refuses an update that leaves half a cTrader application, checked against the stored member', () => {
      const paired: AccountEvent = {
        type: 'AccountCreated',
        data: {
          accountId: ACCOUNT,
          projectId: PROJECT,
          settings: { ...settings, ctraderClientId: 'app-1', ctraderClientSecretCiphertext: 'v1:sealed' },
          at: T0,
        },
      };
      const removed = given([paired])
        .when(command('UpdateAccount', T0, { changes: { ctraderClientId: null } }))
        .thenFails('[VALIDATION_FAILED]');
      expect(removed.message).to.match(/^ctraderClientId: /);
      given([created])
        .when(command('UpdateAccount', T0, { changes: { ctraderClientId: 'app-2' } }))
        .thenFails('[VALIDATION_FAILED]');
      given([paired])
        .when(command('UpdateAccount', T0, { changes: { ctraderClientId: 'app-2' } }))
        .then([{ type: 'AccountUpdated', data: { changes: { ctraderClientId: 'app-2' } } }]);
      given([paired])
        .when(command('UpdateAccount', T0, { changes: { ctraderClientId: null, ctraderClientSecretCiphertext: null } }))
        .then([{ type: 'AccountUpdated' }]);
      // An update not touching the pair is not held back by it.
      given([created])
        .when(command('UpdateAccount', T0, { changes: { alias: 'Renamed' } }))
        .then([{ type: 'AccountUpdated' }]);
    });
  });

  describe('reconnect (at most once every 30 minutes)', () => {
    const reconnected: AccountEvent = { type: 'AccountReconnectRequested', data: { accountId: ACCOUNT, at: T0 } };
    it('needs an Active account', () => given([created]).when(command('ReconnectAccount')).thenFails('[ACCOUNT_NOT_ACTIVE]'));
    it('is allowed the first time', () =>
      given([created, started])
        .when(command('ReconnectAccount'))
        .then([{ type: 'AccountReconnectRequested' }]));
    it('is refused 29 minutes 59 seconds later, with the seconds to wait', () => {
      const error = given([created, started, reconnected]).when(command('ReconnectAccount', '2026-01-05T10:29:59.000Z')).thenFails('[RECONNECT_TOO_FREQUENT]');
      expect(error.kind).to.equal('tooManyRequests');
      expect(error.details?.retryAfterSeconds).to.equal(1);
    });
    it('is allowed again exactly 30 minutes later', () =>
      given([created, started, reconnected])
        .when(command('ReconnectAccount', '2026-01-05T10:30:00.000Z'))
        .then([{ type: 'AccountReconnectRequested' }]));
  });

  describe('project isolation', () => {
    it('an account of another project is reported as not found, for every command', () => {
      for (const kind of ['StartAccount', 'StopAccount', 'ReconnectAccount', 'DeleteAccount'] as const) {
        given([created])
          .when(command(kind, T0, {}, OTHER_PROJECT))
          .thenFails('[ACCOUNT_NOT_FOUND]');
      }
      given([created])
        .when(command('UpdateAccount', T0, { changes: {} }, OTHER_PROJECT))
        .thenFails('[ACCOUNT_NOT_FOUND]');
    });
    it('a missing account is reported as not found', () => given([]).when(command('StartAccount')).thenFails('[ACCOUNT_NOT_FOUND]'));
  });
});
