// The white-label brand's DNS check (spec "Operations known by path and purpose"):
//   GET /projects/{projectId}/whitelabel/dns   each record the brand needs, looked up and judged on its own
// The use case is app/whiteLabelDns.ts, the rules domain/whiteLabel/dns.ts; the brand itself is the
// project feature FeatureWhiteLabelDTO (domain/whiteLabel/feature.ts, at /projects/{projectId}/features).
import { type Static, Type } from '@sinclair/typebox';
import { checkWhiteLabelDns, type DnsCheckResult } from '../../app/whiteLabelDns.js';
import type { Services } from '../../app/services.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses, IsoDateTime, Uuid } from '../shared/schemas.js';

const TAG = 'White label';

const RecordType = Type.Union([Type.Literal('CNAME'), Type.Literal('TXT')], { description: 'CNAME or TXT' });

export const DnsRequiredRecordDTO = Type.Object(
  {
    type: RecordType,
    name: Type.String({ description: 'the DNS name the record sits at' }),
    value: Type.Union([Type.String(), Type.Null()], {
      description:
        'the value expected: a CNAME target, or for TXT the SPF policy to publish (one that includes the same domain passes too); null when the operator configured none',
    }),
    purpose: Type.String({ description: 'why the brand needs it' }),
  },
  { $id: 'DnsRequiredRecordDTO', additionalProperties: false },
);

export const DnsConfigDTO = Type.Object(
  {
    subdomain: Type.String({ description: "the brand's subdomain, in lower case" }),
    records: Type.Array(DnsRequiredRecordDTO, { description: 'every record the brand needs' }),
  },
  { $id: 'DnsConfigDTO', description: 'The records a brand needs (ours: the spec names the DTO only)', additionalProperties: false },
);

export const DnsRecordCheckDTO = Type.Object(
  {
    type: RecordType,
    name: Type.String(),
    expected: Type.Union([Type.String(), Type.Null()], { description: 'the value expected (null: not configured by the operator)' }),
    found: Type.Array(Type.String(), { description: 'what DNS answered: CNAME targets, or TXT strings (chunks joined)' }),
    status: Type.Union(
      ['OK', 'MISSING', 'MISMATCH', 'NOT_CONFIGURED', 'ERROR'].map((s) => Type.Literal(s)),
      {
        description:
          "OK; MISSING (no such record); MISMATCH (a record with another value: a CNAME elsewhere, addresses other than the target's, an SPF policy without the include, two SPF policies); NOT_CONFIGURED (the operator set no WHITE_LABEL_CNAME_TARGET or OPERATOR_DOMAIN); ERROR (the lookup failed: timeout, refused)",
      },
    ),
    ok: Type.Boolean({ description: 'status is OK' }),
    message: Type.String({ description: 'the verdict in words, with what to add or change' }),
    purpose: Type.String(),
  },
  { $id: 'DnsRecordCheckDTO', additionalProperties: false },
);

export const DnsCheckResultDTO = Type.Object(
  {
    subdomain: Type.String(),
    whiteLabelExists: Type.Boolean({
      description: "true: the project's FeatureWhiteLabelDTO exists and its subdomain was checked (a `subdomain` sent was ignored)",
    }),
    ready: Type.Boolean({ description: 'every record is OK' }),
    config: DnsConfigDTO,
    records: Type.Array(DnsRecordCheckDTO, { description: 'one check per record, in the order of config.records' }),
    checked: IsoDateTime,
  },
  { $id: 'DnsCheckResultDTO', additionalProperties: false },
);

const DnsQuery = Type.Object(
  {
    subdomain: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 30,
        description: "the subdomain to check; required before the project's white label exists, ignored afterwards (the brand's own is checked)",
      }),
    ),
  },
  { additionalProperties: false },
);

const toDnsCheckResultDTO = (result: DnsCheckResult): Static<typeof DnsCheckResultDTO> => ({
  subdomain: result.subdomain,
  whiteLabelExists: result.whiteLabelExists,
  ready: result.ready,
  config: { subdomain: result.subdomain, records: result.records.map((r) => ({ type: r.type, name: r.name, value: r.value, purpose: r.purpose })) },
  records: result.checks.map((c) => ({
    type: c.type,
    name: c.name,
    expected: c.value,
    found: [...c.found],
    status: c.status,
    ok: c.status === 'OK',
    message: c.message,
    purpose: c.purpose,
  })),
  checked: result.checked,
});

export const whiteLabelRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ projectId: string }, Static<typeof DnsQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/whitelabel/dns',
    tag: TAG,
    operationId: 'checkWhiteLabelDns',
    summary: "Check the DNS records of the brand's subdomain",
    description:
      "Looks up, one by one, each record the brand needs and says whether it is right, with what to add or change. The records, from the operator's configuration: the subdomain as a CNAME of WHITE_LABEL_CNAME_TARGET (default OPERATOR_DOMAIN; a subdomain with exactly the target's addresses passes too, for providers that flatten CNAMEs); when WHITE_LABEL_SPF_INCLUDE is set, an SPF policy (TXT) on the subdomain that includes it; when WHITE_LABEL_DKIM (selector:target) is set, a CNAME <selector>._domainkey.<subdomain> to the target. Resolvers: WHITE_LABEL_DNS_SERVERS, else the system's; each lookup gives up after 2 s twice (status ERROR). Before the project has a white label, `subdomain` is required (400 [VALIDATION_FAILED] without it); afterwards the brand's own subdomain is checked and `subdomain` is ignored. A root domain (brand.com) gives 400 [VALIDATION_FAILED]. Changes nothing. Needs a project-level key of this project.",
    params: Type.Object({ projectId: Uuid }, { additionalProperties: false }),
    query: DnsQuery,
    responses: { 200: { description: 'the check of every record', schema: DnsCheckResultDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, query, caller }) {
      checkProjectScope(caller, params.projectId, 'the white-label DNS check');
      return { body: toDnsCheckResultDTO(await checkWhiteLabelDns(services, params.projectId, query.subdomain)) };
    },
  });
};
