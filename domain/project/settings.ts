// What a project's owner sets on it (reference ProjectDTO, spec "Other resource members": `billingRegion`):
// its name, the billing address, and the currency it is billed in. The billing members start empty and
// may stay so: nothing is billed yet (issue 23 brings invoices). Country and region are checked against the
// ISO lists in subdivisions.ts, not by their shape alone.
import { hasSubdivisions, isCountry, subdivisionsOf } from './subdivisions.js';

export interface ProjectSettings {
  readonly name: string;
  readonly billingName: string;
  readonly billingCompanyName: string;
  readonly billingStreet: string;
  readonly billingPostcode: string;
  readonly billingCity: string;
  readonly billingCountry: string;
  /** ISO 3166-1 alpha-2, upper case; '' when not given. */
  readonly billingCountryIsoAlpha2: string;
  /** ISO 3166-2 subdivision without the country prefix (DU for Dubai); mandatory for AE, else optional. */
  readonly billingRegion: string | null;
  readonly billingIdentification: string;
  /** CurrencyTypeDTO id: 1 USD, 2 EUR, 3 CHF. */
  readonly currencyTypeId: number;
}

export const BILLING_MEMBERS = [
  'billingName',
  'billingCompanyName',
  'billingStreet',
  'billingPostcode',
  'billingCity',
  'billingCountry',
  'billingCountryIsoAlpha2',
  'billingIdentification',
] as const;

export const MAX_TEXT_LENGTH = 255;
export const DEFAULT_CURRENCY_TYPE_ID = 1;

export const defaultProjectSettings = (name: string): ProjectSettings => ({
  name,
  billingName: '',
  billingCompanyName: '',
  billingStreet: '',
  billingPostcode: '',
  billingCity: '',
  billingCountry: '',
  billingCountryIsoAlpha2: '',
  billingRegion: null,
  billingIdentification: '',
  currencyTypeId: DEFAULT_CURRENCY_TYPE_ID,
});

/** The emirates' ISO 3166-2:AE codes, without the AE- prefix. */
export const UAE_EMIRATES: readonly string[] = [...subdivisionsOf('AE')];

export interface SettingsProblem {
  readonly field: keyof ProjectSettings;
  readonly message: string;
}

/** Why the settings are refused, or null. `isCurrencyType` says whether a currency type id exists. */
export const checkProjectSettings = (settings: ProjectSettings, isCurrencyType: (id: number) => boolean): SettingsProblem | null => {
  if (settings.name.trim() === '') return { field: 'name', message: 'a project needs a name' };
  for (const field of ['name', ...BILLING_MEMBERS] as const) {
    if (settings[field].length > MAX_TEXT_LENGTH) return { field, message: `at most ${MAX_TEXT_LENGTH} characters` };
  }
  const country = settings.billingCountryIsoAlpha2;
  if (country !== '' && !/^[A-Z]{2}$/.test(country)) return { field: 'billingCountryIsoAlpha2', message: 'two letters (ISO 3166-1 alpha-2), e.g. DE' };
  if (country !== '' && !isCountry(country)) return { field: 'billingCountryIsoAlpha2', message: `${country} is not an ISO 3166-1 country code` };
  const region = settings.billingRegion;
  if (region !== null) {
    if (/^[A-Z]{2}-/.test(region)) return { field: 'billingRegion', message: `without the country prefix: ${region.slice(3)} rather than ${region}` };
    if (!/^[A-Z0-9]{1,3}$/.test(region))
      return { field: 'billingRegion', message: 'an ISO 3166-2 subdivision code without the country prefix: 1 to 3 letters or digits' };
  }
  if (country === 'AE') {
    if (region === null) return { field: 'billingRegion', message: `required when billingCountryIsoAlpha2 is AE: one of ${UAE_EMIRATES.join(', ')}` };
    if (!UAE_EMIRATES.includes(region)) return { field: 'billingRegion', message: `not an emirate: one of ${UAE_EMIRATES.join(', ')}` };
  }
  if (region !== null) {
    if (country === '') return { field: 'billingRegion', message: 'a subdivision of the billing country: set billingCountryIsoAlpha2 too' };
    if (!subdivisionsOf(country).has(region)) {
      return {
        field: 'billingRegion',
        message: hasSubdivisions(country)
          ? `${region} is not an ISO 3166-2 subdivision of ${country}`
          : `${country} has no ISO 3166-2 subdivisions: leave billingRegion null`,
      };
    }
  }
  if (!isCurrencyType(settings.currencyTypeId)) return { field: 'currencyTypeId', message: `unknown currency type ${settings.currencyTypeId}` };
  return null;
};
