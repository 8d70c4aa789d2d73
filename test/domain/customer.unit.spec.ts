// The customer aggregate, its one-time sign-in codes and the brand's registration controls
// (domain/customer/): issue 23.
import { expect } from 'chai';
import type { CustomerCommand } from '../../domain/customer/commands.js';
import { customerDecider, DEFAULT_MAX_PROJECTS_PER_CUSTOMER } from '../../domain/customer/decider.js';
import { customerStream, type CustomerEvent } from '../../domain/customer/events.js';
import { registrationRefusal } from '../../domain/customer/registration.js';
import { CODE_MAX_ATTEMPTS, customerCodeDecider, type CustomerCodeEvent, hashCode } from '../../domain/customer/signInCode.js';
import { systemContext } from '../../domain/shared/command.js';
import { givenDecider } from './givenDecider.js';

const NOW = '2026-03-02T09:30:00.000Z';
const BRAND = '11111111-1111-4111-8111-111111111111';
const BRAND_PROJECT = '22222222-2222-4222-8222-222222222222';
const P1 = '33333333-3333-4333-8333-333333333333';
const P2 = '44444444-4444-4444-8444-444444444444';
const JOB = '55555555-5555-4555-8555-555555555555';
const metadata = { now: NOW, context: systemContext('spec') };
const registered: CustomerEvent = {
  type: 'CustomerRegistered',
  data: { customerId: 7, brandFeatureId: BRAND, brandProjectId: BRAND_PROJECT, email: 'jane@acme.test', at: '2026-03-01T00:00:00.000Z' },
};
const owned = (projectId: string): CustomerEvent => ({ type: 'CustomerProjectOwned', data: { customerId: 7, projectId, at: NOW } });
const blocked: CustomerEvent = { type: 'CustomerBlocked', data: { customerId: 7, jobId: JOB, reason: 'fraud', at: NOW } };
const own = (projectId: string, maxProjects: number): CustomerCommand => ({ type: 'OwnProject', data: { projectId, maxProjects }, metadata });

const given = givenDecider(customerDecider);
const givenCode = givenDecider(customerCodeDecider);

describe('customer decider', () => {
  it('registers once: registering the same address again under the brand changes nothing', () => {
    const command: CustomerCommand = {
      type: 'RegisterCustomer',
      data: { customerId: 9, brandFeatureId: BRAND, brandProjectId: BRAND_PROJECT, email: 'jane@acme.test' },
      metadata,
    };
    given([])
      .when(command)
      .then([{ type: 'CustomerRegistered', data: { ...command.data, at: NOW } } as CustomerEvent]);
    given([registered]).when(command).then([]);
  });

  it('keeps one stream per address and brand, whatever the case of the address', () => {
    expect(customerStream(BRAND, ' Jane@ACME.test ')).to.equal(customerStream(BRAND, 'jane@acme.test'));
    expect(customerStream(BRAND, 'jane@acme.test')).not.to.equal(customerStream(P1, 'jane@acme.test'));
  });

  it('owns projects up to maxProjectsPerUser, and refuses one more with 409 [CUSTOMER_PROJECT_LIMIT_REACHED]', () => {
    given([registered])
      .when(own(P1, 1))
      .then([owned(P1)]);
    given([registered, owned(P1)])
      .when(own(P2, 1))
      .thenRefuses('[CUSTOMER_PROJECT_LIMIT_REACHED]', 'conflict');
    given([registered, owned(P1)])
      .when(own(P1, 1))
      .then([]);
  });

  it('takes the platform default when maxProjectsPerUser is 0', () => {
    const many = Array.from({ length: DEFAULT_MAX_PROJECTS_PER_CUSTOMER }, (_, i) => owned(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`));
    given([registered, ...many.slice(1)])
      .when(own(P1, 0))
      .then([owned(P1)]);
    given([registered, ...many])
      .when(own(P1, 0))
      .thenRefuses('[CUSTOMER_PROJECT_LIMIT_REACHED]', 'conflict');
  });

  it('refuses a blocked customer a session and a project with 403 [CUSTOMER_BLOCKED]', () => {
    given([registered, blocked])
      .when({ type: 'SignInCustomer', data: { sessionId: P1, tokenHash: 'h', codeId: P2, expiresAt: NOW }, metadata })
      .thenRefuses('[CUSTOMER_BLOCKED]', 'forbidden');
    given([registered, blocked]).when(own(P1, 0)).thenRefuses('[CUSTOMER_BLOCKED]', 'forbidden');
  });

  it('starts one block job at a time and completes only that one', () => {
    const block: CustomerCommand = { type: 'BlockCustomer', data: { jobId: P1, reason: null }, metadata };
    given([registered])
      .when(block)
      .then([{ type: 'CustomerBlocked', data: { customerId: 7, jobId: P1, reason: null, at: NOW } }]);
    given([registered, blocked]).when(block).then([]);
    const complete = (jobId: string): CustomerCommand => ({
      type: 'CompleteCustomerBlock',
      data: { jobId, projectIds: [], suspendedKeys: 0, stoppedAccounts: 0, stoppedCopiers: 0 },
      metadata,
    });
    given([registered, blocked]).when(complete(P1)).then([]);
    given([registered, blocked])
      .when(complete(JOB))
      .then([
        {
          type: 'CustomerBlockCompleted',
          data: { customerId: 7, jobId: JOB, projectIds: [], suspendedKeys: 0, stoppedAccounts: 0, stoppedCopiers: 0, at: NOW },
        },
      ]);
  });

  it('unblocks a blocked customer only, handing the accounts the block stopped to the unblock job', () => {
    const A1 = '77777777-7777-4777-8777-777777777777';
    const stopped: CustomerEvent = {
      type: 'CustomerAccountStopped',
      data: { customerId: 7, jobId: JOB, projectId: P1, accountId: A1, reason: 'fraud', at: NOW },
    };
    const unblock: CustomerCommand = { type: 'UnblockCustomer', data: { jobId: P2 }, metadata };
    given([registered]).when(unblock).thenRefuses('[CUSTOMER_NOT_BLOCKED]', 'conflict');
    given([registered, owned(P1), blocked, stopped])
      .when(unblock)
      .then([{ type: 'CustomerUnblocked', data: { customerId: 7, jobId: P2, accountIds: [A1], at: NOW } }]);
    const unblocked: CustomerEvent = { type: 'CustomerUnblocked', data: { customerId: 7, jobId: P2, accountIds: [A1], at: NOW } };
    given([registered, owned(P1), blocked, stopped, unblocked])
      .when(unblock)
      .thenRefuses('[CUSTOMER_NOT_BLOCKED]', 'conflict');
    // A round finishing an interrupted job notes an account it noted before once only.
    given([registered, owned(P1), blocked, stopped])
      .when({ type: 'NoteCustomerAccountStopped', data: { jobId: JOB, projectId: P1, accountId: A1 }, metadata })
      .then([]);
    // The block's job, still running, notes nothing more; the customer signs in and owns projects again.
    given([registered, owned(P1), blocked, stopped, unblocked])
      .when({ type: 'NoteCustomerAccountStopped', data: { jobId: JOB, projectId: P1, accountId: P2 }, metadata })
      .then([]);
    given([registered, owned(P1), blocked, unblocked])
      .when(own(P2, 0))
      .then([owned(P2)]);
    const complete = (jobId: string): CustomerCommand => ({
      type: 'CompleteCustomerUnblock',
      data: { jobId, restartedAccounts: [A1], notRestarted: [] },
      metadata,
    });
    given([registered, blocked, unblocked]).when(complete(JOB)).then([]);
    given([registered, blocked, unblocked])
      .when(complete(P2))
      .then([{ type: 'CustomerUnblockCompleted', data: { customerId: 7, jobId: P2, restartedAccounts: [A1], notRestarted: [], at: NOW } }]);
    // A second block stops afresh: the first block's accounts are not handed over twice.
    const again: CustomerEvent = { type: 'CustomerBlocked', data: { customerId: 7, jobId: P1, reason: null, at: NOW } };
    given([registered, blocked, stopped, unblocked, again])
      .when(unblock)
      .then([{ type: 'CustomerUnblocked', data: { customerId: 7, jobId: P2, accountIds: [], at: NOW } }]);
  });
});

describe('customer sign-in code', () => {
  const CODE_ID = '66666666-6666-4666-8666-666666666666';
  const sent: CustomerCodeEvent = {
    type: 'CustomerCodeSent',
    data: {
      codeId: CODE_ID,
      brandFeatureId: BRAND,
      email: 'jane@acme.test',
      purpose: 'SIGN_IN',
      codeHash: hashCode(CODE_ID, '12345678'),
      expiresAt: '2026-03-02T09:40:00.000Z',
      at: NOW,
    },
  };
  const use = (code: string, now = NOW) => ({
    type: 'UseCustomerCode' as const,
    data: { codeId: CODE_ID, codeHash: hashCode(CODE_ID, code) },
    metadata: { ...metadata, now },
  });

  it('is used once with the right code', () => {
    givenCode([sent])
      .when(use('12345678'))
      .then([{ type: 'CustomerCodeUsed', data: { codeId: CODE_ID, at: NOW } }]);
    givenCode([sent, { type: 'CustomerCodeUsed', data: { codeId: CODE_ID, at: NOW } }])
      .when(use('12345678'))
      .thenRefuses('[CUSTOMER_CODE_INVALID]', 'validation');
  });

  it('counts a wrong code, and refuses every guess after the last attempt, the right one too', () => {
    givenCode([sent])
      .when(use('00000000'))
      .then([{ type: 'CustomerCodeRejected', data: { codeId: CODE_ID, attempts: 1, at: NOW } }]);
    const spent: CustomerCodeEvent = { type: 'CustomerCodeRejected', data: { codeId: CODE_ID, attempts: CODE_MAX_ATTEMPTS, at: NOW } };
    givenCode([sent, spent]).when(use('12345678')).thenRefuses('[CUSTOMER_CODE_ATTEMPTS_EXCEEDED]', 'tooManyRequests');
  });

  it('expires at expiresAt', () => {
    givenCode([sent]).when(use('12345678', '2026-03-02T09:40:00.000Z')).thenRefuses('[CUSTOMER_CODE_EXPIRED]', 'validation');
  });
});

describe('registration controls', () => {
  const controls = { restrictRegistration: true, allowedEmailDomains: 'acme.test, @partner.test', allowedRegistrationEmails: 'bob@gmail.test' };
  it('lets anybody register while restrictRegistration is false', () => {
    expect(registrationRefusal({ ...controls, restrictRegistration: false }, 'eve@evil.test')).to.equal(null);
  });
  it('lets in only the listed domains and addresses when restrictRegistration is true', () => {
    expect(registrationRefusal(controls, 'jane@acme.test')).to.equal(null);
    expect(registrationRefusal(controls, 'joe@partner.test')).to.equal(null);
    expect(registrationRefusal(controls, 'bob@gmail.test')).to.equal(null);
    expect(registrationRefusal(controls, 'alice@gmail.test')).to.match(/restrictRegistration/);
    expect(registrationRefusal(controls, 'jane@sub.acme.test')).to.match(/restrictRegistration/);
  });
});
