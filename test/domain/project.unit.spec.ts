// The project aggregate's settings (domain/project/decider.ts, settings.ts): reference ProjectDTO with
// the spec's billingRegion (mandatory for AE), dedicated read-only after creation.
import { expect } from 'chai';
import type { ProjectCommand } from '../../domain/project/commands.js';
import { projectDecider } from '../../domain/project/decider.js';
import type { ProjectEvent } from '../../domain/project/events.js';
import { defaultProjectSettings, type ProjectSettings } from '../../domain/project/settings.js';
import { systemContext } from '../../domain/shared/command.js';
import { givenDecider } from './givenDecider.js';

const NOW = '2026-03-02T09:30:00.000Z';
const P = '44444444-4444-4444-8444-444444444444';
const metadata = { now: NOW, context: systemContext('spec') };
const created = (dedicated?: boolean): ProjectEvent => ({
  type: 'ProjectCreated',
  data: { projectId: P, name: 'Desk', owner: null, ...(dedicated === undefined ? {} : { dedicated }), at: '2026-01-01T00:00:00.000Z' },
});
const settings = (overrides: Partial<ProjectSettings> = {}): ProjectSettings => ({
  ...defaultProjectSettings('Desk'),
  billingCity: 'Dubai',
  billingCountryIsoAlpha2: 'AE',
  billingRegion: 'DU',
  currencyTypeId: 3,
  ...overrides,
});
const update = (overrides: Partial<ProjectSettings> = {}, dedicated = false): ProjectCommand => ({
  type: 'UpdateProject',
  data: { projectId: P, settings: settings(overrides), dedicated },
  metadata,
});

const given = givenDecider(projectDecider);

describe('project decider: settings', () => {
  it('changes the settings, and does nothing when they are the same', () => {
    given([created()])
      .when(update())
      .then([{ type: 'ProjectUpdated', data: { projectId: P, settings: settings(), at: NOW } }]);
    given([created(), { type: 'ProjectUpdated', data: { projectId: P, settings: settings(), at: NOW } }])
      .when(update())
      .then([]);
  });

  it('refuses an unknown project', () => given([]).when(update()).thenRefuses('[PROJECT_NOT_FOUND]', 'notFound'));

  it('requires an emirate as billingRegion for AE, and the region code without its country prefix', () => {
    const fields = [
      update({ billingRegion: null }),
      update({ billingRegion: 'AE-DU' }),
      update({ billingRegion: 'ZZ' }),
      update({ billingCountryIsoAlpha2: 'DE', billingRegion: 'Bavaria' }),
      update({ billingCountryIsoAlpha2: 'Deutschland', billingRegion: null }),
    ].map((command) => given([created()]).when(command).thenRefuses('[VALIDATION_FAILED]', 'validation').details);
    expect(fields).to.deep.equal(
      Array(4)
        .fill({ field: 'billingRegion' })
        .concat([{ field: 'billingCountryIsoAlpha2' }]),
    );
    given([created()])
      .when(update({ billingCountryIsoAlpha2: 'DE', billingRegion: null }))
      .then([{ type: 'ProjectUpdated', data: { projectId: P, settings: settings({ billingCountryIsoAlpha2: 'DE', billingRegion: null }), at: NOW } }]);
  });

  it('refuses a blank name and an unknown currency type', () => {
    expect(
      given([created()])
        .when(update({ name: ' ' }))
        .thenRefuses('[VALIDATION_FAILED]', 'validation').details,
    ).to.deep.equal({ field: 'name' });
    expect(
      given([created()])
        .when(update({ currencyTypeId: 4 }))
        .thenRefuses('[VALIDATION_FAILED]', 'validation').details,
    ).to.deep.equal({
      field: 'currencyTypeId',
    });
  });

  it('keeps dedicated as the project was created: false unless its creation said true', () => {
    given([created()]).when(update({}, true)).thenRefuses('[VALIDATION_FAILED]', 'validation');
    given([created(true)])
      .when(update({}, false))
      .thenRefuses('[VALIDATION_FAILED]', 'validation');
    given([created(true)])
      .when(update({}, true))
      .then([{ type: 'ProjectUpdated', data: { projectId: P, settings: settings(), at: NOW } }]);
  });
});

describe('project decider: regions against the ISO 3166-2 list', () => {
  it('accepts a subdivision of the billing country, and refuses one of another country, an unknown country or a region without a country', () => {
    given([created()])
      .when(update({ billingCountryIsoAlpha2: 'DE', billingRegion: 'BY' }))
      .then([{ type: 'ProjectUpdated', data: { projectId: P, settings: settings({ billingCountryIsoAlpha2: 'DE', billingRegion: 'BY' }), at: NOW } }]);
    for (const [overrides, field] of [
      [{ billingCountryIsoAlpha2: 'DE', billingRegion: 'DU' }, 'billingRegion'],
      [{ billingCountryIsoAlpha2: 'ZZ', billingRegion: null }, 'billingCountryIsoAlpha2'],
      [{ billingCountryIsoAlpha2: '', billingRegion: 'BY' }, 'billingRegion'],
      [{ billingCountryIsoAlpha2: 'AQ', billingRegion: 'X1' }, 'billingRegion'],
    ] as const) {
      expect(given([created()]).when(update(overrides)).thenRefuses('[VALIDATION_FAILED]', 'validation').details, JSON.stringify(overrides)).to.deep.equal({
        field,
      });
    }
  });
});

describe('project decider: creation and deletion', () => {
  const deleted: ProjectEvent = { type: 'ProjectDeleted', data: { projectId: P, at: NOW } };
  const remove: ProjectCommand = { type: 'DeleteProject', data: { projectId: P }, metadata };

  it('creates a project once with a trimmed name, and refuses a blank one', () => {
    given([])
      .when({ type: 'CreateProject', data: { projectId: P, name: ' Desk ', owner: 'a@b.c' }, metadata })
      .then([{ type: 'ProjectCreated', data: { projectId: P, name: 'Desk', owner: 'a@b.c', at: NOW } }]);
    given([created()])
      .when({ type: 'CreateProject', data: { projectId: P, name: 'Desk', owner: null }, metadata })
      .then([]);
    given([])
      .when({ type: 'CreateProject', data: { projectId: P, name: ' ', owner: null }, metadata })
      .thenRefuses('[VALIDATION_FAILED]', 'validation');
  });

  it('deletes once; a deleted project refuses every change with [PROJECT_DELETED]', () => {
    given([]).when(remove).thenRefuses('[PROJECT_NOT_FOUND]', 'notFound');
    given([created()]).when(remove).then([deleted]);
    given([created(), deleted]).when(remove).then([]);
    given([created(), deleted]).when(update()).thenRefuses('[PROJECT_DELETED]', 'notFound');
  });
});
