// Every default the reference document states is ours too (the wire format is the reference's, defaults
// included, so that generated clients work unchanged): each member of a reference schema with a
// `default` has the same `default` on the same member of our schema of that name, at the member's own
// level (generated clients do not look inside an `anyOf` branch). The few where we chose otherwise are
// listed with the reason, which our OpenAPI text also gives.
import { expect } from 'chai';
import { declareRoutes } from '../../api/app.js';
import { buildOpenApi } from '../../api/openapi.js';
import type { Services } from '../../app/services.js';
import { loadReference, type OpenApiDocument } from '../support/reference.js';

/** `Schema.member` -> why our default differs (each is said in the member's description too). */
const DIFFERENT_ON_PURPOSE: Readonly<Record<string, string>> = {
  'FeatureMultiplierDTO.multiplier': "the reference's 0 lies outside its own range 0.001-999.999: left out (null) = the copier's own multiplier",
  'RiskLimitDTO.resetTime': "left out = midnight in the service's TIME_ZONE, which is the reference's 00:00+00:00 under the default configuration",
};

const ours = buildOpenApi(declareRoutes({} as Services).specs, '1.2.6') as unknown as OpenApiDocument;

interface Stated {
  readonly member: string;
  readonly reference: unknown;
  readonly ours: unknown;
}

const statedDefaults = (): Stated[] => {
  const reference = loadReference().components?.schemas ?? {};
  const mine = ours.components?.schemas ?? {};
  const out: Stated[] = [];
  for (const [name, schema] of Object.entries(reference)) {
    for (const [member, property] of Object.entries(schema.properties ?? {})) {
      if (property.default === undefined) continue;
      const our = mine[name]?.properties?.[member];
      out.push({ member: `${name}.${member}`, reference: property.default, ours: our ? (our.default ?? '(none)') : '(no such member)' });
    }
  }
  return out;
};

describe('the reference document: defaults', () => {
  const stated = statedDefaults();

  it('states defaults for well over a hundred members (the check reads the right document)', () => {
    expect(stated.length).to.be.greaterThan(150);
  });

  it("our document states each of them, with the reference's value, at the member's own level", () => {
    const wrong = stated.filter((s) => !(s.member in DIFFERENT_ON_PURPOSE) && s.ours !== s.reference);
    expect(wrong.map((s) => `${s.member}: reference ${JSON.stringify(s.reference)}, ours ${JSON.stringify(s.ours)}`)).to.deep.equal([]);
  });

  it('the members that differ on purpose still differ (else their line goes)', () => {
    const same = stated.filter((s) => s.member in DIFFERENT_ON_PURPOSE && s.ours === s.reference).map((s) => s.member);
    expect(same).to.deep.equal([]);
    expect(Object.keys(DIFFERENT_ON_PURPOSE).filter((m) => !stated.some((s) => s.member === m))).to.deep.equal([]);
  });
});
