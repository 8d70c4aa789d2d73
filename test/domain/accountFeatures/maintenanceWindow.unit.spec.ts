import { expect } from 'chai';
import {
  accountMatches,
  closeStrategyOf,
  entryChange,
  maintenanceStep,
  maintenanceWindowFeature,
  type MaintenanceWindowSettings,
  type WindowProgress,
  windowKeyOf,
} from '../../../domain/accountFeatures/maintenanceWindow.js';
import type { MaintenanceCommand } from '../../../domain/maintenanceWindow/commands.js';
import { maintenanceDecider, type MaintenanceWindows } from '../../../domain/maintenanceWindow/decider.js';
import type { MaintenanceEvent } from '../../../domain/maintenanceWindow/events.js';

describe('feature: FeatureMaintenanceWindowDTO', () => {
  const setting = (overrides: Partial<MaintenanceWindowSettings> = {}): MaintenanceWindowSettings => ({
    ...(maintenanceWindowFeature.defaults as MaintenanceWindowSettings),
    startTime: '2026-01-07T10:00:00Z',
    endTime: '2026-01-07T11:00:00Z',
    ...overrides,
  });
  const at = (time: string) => Date.parse(`2026-01-07T${time}Z`);
  const progress = (overrides: Partial<WindowProgress> = {}): WindowProgress => ({
    entered: true,
    copiersSwitched: false,
    closedFor: [],
    entryCompleted: false,
    exited: false,
    ...overrides,
  });

  describe('the next step', () => {
    it('enters once the window starts, not a second before, and not after it ended', () => {
      expect(maintenanceStep(setting(), null, [], at('09:59:59'))).to.equal('none');
      expect(maintenanceStep(setting(), null, [], at('10:00:00'))).to.equal('enter');
      expect(maintenanceStep(setting(), null, [], at('11:00:00'))).to.equal('none');
    });

    it('does nothing while disabled', () => expect(maintenanceStep(setting({ enabled: false }), null, [], at('10:30:00'))).to.equal('none'));

    it('switches the copiers, closes per affected account, completes the entry, in that order', () => {
      const s = setting({ closePositionStrategy: 'CLOSE_ALL' });
      expect(maintenanceStep(s, progress(), ['a', 'b'], at('10:00:01'))).to.equal('switchCopiers');
      expect(maintenanceStep(s, progress({ copiersSwitched: true }), ['a', 'b'], at('10:00:01'))).to.equal('closePositions');
      expect(maintenanceStep(s, progress({ copiersSwitched: true, closedFor: ['a'] }), ['a', 'b'], at('10:00:01'))).to.equal('closePositions');
      expect(maintenanceStep(s, progress({ copiersSwitched: true, closedFor: ['a', 'b'] }), ['a', 'b'], at('10:00:01'))).to.equal('completeEntry');
      expect(maintenanceStep(s, progress({ copiersSwitched: true, closedFor: ['a', 'b'], entryCompleted: true }), ['a', 'b'], at('10:30:00'))).to.equal('none');
    });

    it('closes nothing with closePositionStrategy NONE', () =>
      expect(maintenanceStep(setting(), progress({ copiersSwitched: true }), ['a'], at('10:00:01'))).to.equal('completeEntry'));

    it('exits at endsAt, also halfway through the entry, and only once', () => {
      expect(maintenanceStep(setting(), progress({ copiersSwitched: true, entryCompleted: true }), [], at('10:59:59'))).to.equal('none');
      expect(maintenanceStep(setting(), progress({ copiersSwitched: true, entryCompleted: true }), [], at('11:00:00'))).to.equal('exit');
      expect(maintenanceStep(setting({ closePositionStrategy: 'CLOSE_ALL' }), progress({ copiersSwitched: true }), ['a'], at('11:00:00'))).to.equal('exit');
      expect(maintenanceStep(setting(), progress({ exited: true }), [], at('11:00:00'))).to.equal('none');
    });

    it('exits at once when the feature is disabled or gone during the window', () => {
      expect(maintenanceStep(setting({ enabled: false }), progress({ entryCompleted: true }), [], at('10:30:00'))).to.equal('exit');
      expect(maintenanceStep(null, progress({ entryCompleted: true }), [], at('10:30:00'))).to.equal('exit');
    });
  });

  describe('the change made to a copier', () => {
    it('MONITOR_ONLY makes an active copier monitor-only; DEACTIVATE_COPIERS makes it inactive', () => {
      expect(entryChange('MONITOR_ONLY', { active: true, monitorOnly: false })).to.deep.equal({ monitorOnly: true });
      expect(entryChange('DEACTIVATE_COPIERS', { active: true, monitorOnly: true })).to.deep.equal({ active: false });
    });

    it('leaves an inactive copier, an already monitor-only one under MONITOR_ONLY, and everything under NONE', () => {
      expect(entryChange('MONITOR_ONLY', { active: false, monitorOnly: false })).to.equal(null);
      expect(entryChange('DEACTIVATE_COPIERS', { active: false, monitorOnly: false })).to.equal(null);
      expect(entryChange('MONITOR_ONLY', { active: true, monitorOnly: true })).to.equal(null);
      expect(entryChange('NONE', { active: true, monitorOnly: false })).to.equal(null);
    });
  });

  it('refuses an end not after the start and a window longer than 31 days; its state members are read-only', () => {
    expect(maintenanceWindowFeature.check!(setting({ endTime: '2026-01-07T10:00:00Z' }))).to.equal(
      'endTime 2026-01-07T10:00:00Z must be after startTime 2026-01-07T10:00:00Z',
    );
    expect(maintenanceWindowFeature.check!(setting({ endTime: '2026-02-08T10:00:00Z' }))).to.equal('the window lasts more than 31 days');
    expect(maintenanceWindowFeature.check!(setting())).to.equal(null);
    expect(maintenanceWindowFeature.stateMembers).to.deep.equal(['positionsClosedForAccounts', 'entryActionsExecuted', 'affectedCopierStates']);
  });

  it('closeAllPositions (the reference) closes everything, whatever closePositionStrategy says', () => {
    expect(closeStrategyOf(setting({ closeAllPositions: true }))).to.equal('CLOSE_ALL');
    expect(closeStrategyOf(setting({ closePositionStrategy: 'CLOSE_COPIED' }))).to.equal('CLOSE_COPIED');
    expect(maintenanceStep(setting({ closeAllPositions: true }), progress({ copiersSwitched: true }), ['a'], at('10:00:01'))).to.equal('closePositions');
    expect(maintenanceStep(setting(), progress({ copiersSwitched: true }), ['a'], at('10:00:01'))).to.equal('completeEntry');
  });

  it('affects only accounts of accountType whose loginServer matches broker, the whole name without case', () => {
    const account = { accountTypeId: 1, loginServer: 'ICMarketsSC-MT5-4' };
    expect(accountMatches(setting(), account)).to.equal(true);
    expect(accountMatches(setting({ broker: 'ICMarkets.*' }), account)).to.equal(true);
    expect(accountMatches(setting({ broker: 'icmarkets.*' }), account)).to.equal(true);
    expect(accountMatches(setting({ broker: '.*' }), account)).to.equal(true);
    expect(accountMatches(setting({ broker: '' }), account)).to.equal(true);
    expect(accountMatches(setting({ broker: 'ICMarkets' }), account)).to.equal(false);
    expect(accountMatches(setting({ broker: 'Pepperstone.*|ICMarkets.*' }), account)).to.equal(true);
    expect(accountMatches(setting({ accountType: { id: 1 } }), account)).to.equal(true);
    expect(accountMatches(setting({ accountType: { id: 2 } }), account)).to.equal(false);
  });

  it('refuses an unknown account type, a broker pattern that does not compile or quantifies a group', () => {
    expect(maintenanceWindowFeature.check!(setting({ accountType: { id: 999 } }))).to.match(/accountType 999 is no account type/);
    expect(maintenanceWindowFeature.check!(setting({ broker: 'ICMarkets[' }))).to.match(/no regular expression/);
    expect(maintenanceWindowFeature.check!(setting({ broker: '(a+)+$' }))).to.match(/quantified group/);
    expect(maintenanceWindowFeature.check!(setting({ broker: '(ICMarkets|Pepperstone).*' }))).to.equal(null);
  });

  it('names a window by its instants, whatever offset they were written with', () =>
    expect(windowKeyOf({ startTime: '2026-01-07T11:00:00+01:00', endTime: '2026-01-07T11:00:00Z' })).to.equal(
      '2026-01-07T10:00:00.000Z/2026-01-07T11:00:00.000Z',
    ));
});

describe('maintenance window stream', () => {
  const KEY = '2026-01-07T10:00:00.000Z/2026-01-07T11:00:00.000Z';
  const metadata = {
    now: '2026-01-07T10:00:00.000Z',
    context: { apiKeyId: null, projectId: 'p', clientIp: null, method: null, path: null, correlationId: 'maintenance:f' },
  };
  const target = { featureId: 'f', windowKey: KEY, accountId: 'acc' };
  const enter: MaintenanceCommand = {
    type: 'EnterMaintenanceWindow',
    data: {
      ...target,
      projectId: 'p',
      startsAt: '2026-01-07T10:00:00Z',
      endsAt: '2026-01-07T11:00:00Z',
      maintenanceAction: 'MONITOR_ONLY',
      closePositionStrategy: 'CLOSE_ALL',
      affectedAccountIds: ['acc'],
      copierStates: [{ copierId: 'c', toAccountId: 'acc', active: true, monitorOnly: false }],
    },
    metadata,
  };
  const run = (commands: readonly MaintenanceCommand[], state: MaintenanceWindows = maintenanceDecider.initialState) => {
    const events: MaintenanceEvent[] = [];
    for (const command of commands) {
      const produced = maintenanceDecider.decide(command, state);
      events.push(...produced);
      state = produced.reduce(maintenanceDecider.evolve, state);
    }
    return { events, state };
  };

  it('records the copier states of the first entry only: a repeated entry changes nothing', () => {
    const again: MaintenanceCommand = {
      ...enter,
      data: { ...enter.data, copierStates: [{ copierId: 'c', toAccountId: 'acc', active: true, monitorOnly: true }] },
    } as MaintenanceCommand;
    const { events, state } = run([enter, again]);
    expect(events.map((e) => e.type)).to.deep.equal(['MaintenanceWindowEntered']);
    expect(state.windows[KEY]!.copierStates).to.deep.equal([{ copierId: 'c', toAccountId: 'acc', active: true, monitorOnly: false }]);
  });

  it('records each step once, in order, through the exit', () => {
    const { events, state } = run([
      enter,
      { type: 'RecordCopiersSwitched', data: { ...target, switched: ['c'] }, metadata },
      { type: 'RecordCopiersSwitched', data: { ...target, switched: ['c'] }, metadata },
      { type: 'RecordPositionsClosed', data: { ...target, closedAccountId: 'acc', closed: 2 }, metadata },
      { type: 'RecordPositionsClosed', data: { ...target, closedAccountId: 'acc', closed: 2 }, metadata },
      { type: 'CompleteMaintenanceEntry', data: target, metadata },
      { type: 'ExitMaintenanceWindow', data: { ...target, restored: ['c'] }, metadata },
      { type: 'ExitMaintenanceWindow', data: { ...target, restored: ['c'] }, metadata },
    ]);
    expect(events.map((e) => e.type)).to.deep.equal([
      'MaintenanceWindowEntered',
      'MaintenanceWindowCopiersSwitched',
      'MaintenanceWindowPositionsClosed',
      'MaintenanceWindowEntryCompleted',
      'MaintenanceWindowExited',
    ]);
    expect(state.windows[KEY]).to.deep.include({ entered: true, copiersSwitched: true, closedFor: ['acc'], entryCompleted: true, exited: true });
  });

  it('refuses a step of a window that never started', () =>
    expect(() => run([{ type: 'ExitMaintenanceWindow', data: { ...target, restored: [] }, metadata }]))
      .to.throw()
      .with.property('code', '[MAINTENANCE_WINDOW_NOT_ENTERED]'));
});
