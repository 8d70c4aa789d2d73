// Who may register under a brand (FeatureWhiteLabelDTO, spec "Feature DTOs"): allowedEmailDomains and
// allowedRegistrationEmails (both comma-separated) are enforced only when restrictRegistration is true;
// then an address registers when it is listed, or its domain is (exact, case-insensitive: sub.brand.com is
// not brand.com; an entry may be written with a leading "@").
import { invalid } from '../shared/errors.js';

export interface RegistrationControls {
  readonly restrictRegistration: boolean;
  readonly allowedEmailDomains: string;
  readonly allowedRegistrationEmails: string;
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/^@/, ''))
    .filter(Boolean);

const EMAIL = /^[^\s@,;<>"]{1,64}@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

export const isCustomerEmail = (email: string): boolean => email.length <= 254 && EMAIL.test(email);

/** null when `email` (normalised) may register under a brand with these controls; otherwise why not. */
export const registrationRefusal = (controls: RegistrationControls, email: string): string | null => {
  if (!controls.restrictRegistration) return null;
  if (list(controls.allowedRegistrationEmails).includes(email)) return null;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (list(controls.allowedEmailDomains).includes(domain)) return null;
  return 'this brand registers only the e-mail domains and addresses its operator allows (restrictRegistration)';
};

export const checkCustomerEmail = (email: string): void => {
  if (!isCustomerEmail(email)) throw invalid('[VALIDATION_FAILED]', 'email: an e-mail address such as jane@example.com', { field: 'body.email' });
};
