import { expect } from 'chai';
import { validate, version } from 'uuid';
import { slaveOrderId } from '../../../domain/copy/orderIds.js';
import { COPIER_ID, EVENT_ID } from './given.js';

const OTHER_ID = '9f1c2b3a-4d5e-4f60-8a7b-6c5d4e3f2a10';

describe('copy order ids: slaveOrderId', () => {
  it('gives the same id for the same master event, copier and action: a replay places nothing twice', () =>
    expect(slaveOrderId(EVENT_ID, COPIER_ID, 'open')).to.equal(slaveOrderId(EVENT_ID, COPIER_ID, 'open')));

  it('is a version 5 UUID', () => {
    const id = slaveOrderId(EVENT_ID, COPIER_ID, 'close');
    expect(validate(id)).to.equal(true);
    expect(version(id)).to.equal(5);
  });

  it('never changes across releases (pinned value of the namespace and the name layout)', () =>
    expect(slaveOrderId(EVENT_ID, COPIER_ID, 'open')).to.equal('757bdb8b-b7e6-5202-92f3-4bbc56d2a93f'));

  it('differs per action, so a fill that cancels and opens gets two ids', () =>
    expect(slaveOrderId(EVENT_ID, COPIER_ID, 'cancel')).to.not.equal(slaveOrderId(EVENT_ID, COPIER_ID, 'open')));

  it('differs per copier, so two slaves of one master never share an id', () =>
    expect(slaveOrderId(EVENT_ID, OTHER_ID, 'open')).to.not.equal(slaveOrderId(EVENT_ID, COPIER_ID, 'open')));

  it('differs per master event', () => expect(slaveOrderId(OTHER_ID, COPIER_ID, 'modify')).to.not.equal(slaveOrderId(EVENT_ID, COPIER_ID, 'modify')));
});
