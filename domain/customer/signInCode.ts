// A one-time sign-in code (stream `customerCode-<codeId>`): the second factor of registration and sign-in
// by e-mail under a brand (issue 23: "a one-time link or code sent through the SMTP channel; no passwords
// to store"). The code itself is mailed and never stored: only SHA-256 of `codeId:code`. It is good for
// CODE_TTL_MS, for one successful use, and for CODE_MAX_ATTEMPTS wrong guesses in all; after that it is
// spent and a new one must be asked for.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { CommandMetadata, Decider } from '../shared/command.js';
import { DomainError, invalid } from '../shared/errors.js';

export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
/** Codes one address may be sent per brand within CODE_SEND_WINDOW_MS. */
export const CODE_SEND_LIMIT = 5;
export const CODE_SEND_WINDOW_MS = 60 * 60_000;
export const CODE_DIGITS = 8;

export type CodePurpose = 'REGISTRATION' | 'SIGN_IN';

export type CustomerCodeEvent =
  | {
      type: 'CustomerCodeSent';
      data: { codeId: string; brandFeatureId: string; email: string; purpose: CodePurpose; codeHash: string; expiresAt: string; at: string };
    }
  | { type: 'CustomerCodeRejected'; data: { codeId: string; attempts: number; at: string } }
  | { type: 'CustomerCodeUsed'; data: { codeId: string; at: string } };

export const customerCodeEventTypes: readonly CustomerCodeEvent['type'][] = ['CustomerCodeSent', 'CustomerCodeRejected', 'CustomerCodeUsed'];
export const CUSTOMER_CODE_STREAM_PREFIX = 'customerCode-';
export const customerCodeStream = (codeId: string): string => `${CUSTOMER_CODE_STREAM_PREFIX}${codeId}`;

export const hashCode = (codeId: string, code: string): string => createHash('sha256').update(`${codeId}:${code.trim()}`).digest('hex');

export type CustomerCodeCommand =
  | { type: 'SendCustomerCode'; data: Omit<Extract<CustomerCodeEvent, { type: 'CustomerCodeSent' }>['data'], 'at'>; metadata: CommandMetadata }
  /** `codeHash`: hashCode(codeId, what the person typed). */
  | { type: 'UseCustomerCode'; data: { codeId: string; codeHash: string }; metadata: CommandMetadata };

export interface CustomerCode {
  readonly exists: boolean;
  readonly brandFeatureId: string;
  readonly email: string;
  readonly purpose: CodePurpose;
  readonly codeHash: string;
  readonly expiresAt: string;
  readonly attempts: number;
  readonly used: boolean;
}

const initialState: CustomerCode = { exists: false, brandFeatureId: '', email: '', purpose: 'SIGN_IN', codeHash: '', expiresAt: '', attempts: 0, used: false };

const codeInvalid = () => invalid('[CUSTOMER_CODE_INVALID]', 'the code is wrong, used or unknown: ask for a new one');

const sameHash = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const decide = (command: CustomerCodeCommand, state: CustomerCode): CustomerCodeEvent[] => {
  const at = command.metadata.now;
  switch (command.type) {
    case 'SendCustomerCode':
      if (state.exists) return [];
      return [{ type: 'CustomerCodeSent', data: { ...command.data, at } }];
    case 'UseCustomerCode': {
      if (!state.exists || state.used) throw codeInvalid();
      if (state.attempts >= CODE_MAX_ATTEMPTS) {
        throw new DomainError('tooManyRequests', '[CUSTOMER_CODE_ATTEMPTS_EXCEEDED]', `${CODE_MAX_ATTEMPTS} wrong codes: ask for a new one`);
      }
      if (Date.parse(at) >= Date.parse(state.expiresAt)) throw invalid('[CUSTOMER_CODE_EXPIRED]', 'the code has expired: ask for a new one');
      // A wrong code is an event (it counts), answered as a refusal by the caller (app/customersSignIn.ts).
      if (!sameHash(command.data.codeHash, state.codeHash))
        return [{ type: 'CustomerCodeRejected', data: { codeId: command.data.codeId, attempts: state.attempts + 1, at } }];
      return [{ type: 'CustomerCodeUsed', data: { codeId: command.data.codeId, at } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: CustomerCode, event: CustomerCodeEvent): CustomerCode => {
  switch (event.type) {
    case 'CustomerCodeSent':
      return { ...initialState, exists: true, ...event.data };
    case 'CustomerCodeRejected':
      return { ...state, attempts: event.data.attempts };
    case 'CustomerCodeUsed':
      return { ...state, used: true };
    default:
      return state;
  }
};

export const customerCodeDecider: Decider<CustomerCodeCommand, CustomerCodeEvent, CustomerCode> = { decide, evolve, initialState };
