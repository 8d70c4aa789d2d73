// Symbol mappings on the wire: the reference's SymbolMappingDTO (project mappings, the copier's mappings
// in effect, an account's mappings for given symbols) and RequestSymbolMappingsDTO; and our own view of
// a copier's explicit mappings (CopierSymbolMappingDTO, master symbol to slave symbol).
import { Type } from '@sinclair/typebox';
import { MAX_PATTERN_LENGTH, MAX_PRIORITY, MAX_SYMBOL_LENGTH } from '../../domain/symbolMapping/rule.js';
import { Nullable, Uuid } from '../shared/schemas.js';

const brokerDescription = (side: 'comes from' | 'is copied to') =>
  `Applies only when the trade ${side} a broker this regular expression matches, for example 'ICMarkets.*'; '.*' (or an empty string) for every broker. It must match the account's whole loginServer, without regard to case. Patterns that can backtrack exponentially (a repeated group holding a repetition or an alternation, as in '(a+)+'), back-references and look-arounds give 400 [VALIDATION_FAILED].`;

const from = Type.String({
  minLength: 1,
  maxLength: MAX_SYMBOL_LENGTH,
  description: "The master's symbol, e.g. GBPUSD (a name, not a regular expression; compared exactly, else without regard to case)",
});
const to = Type.String({ minLength: 1, maxLength: MAX_SYMBOL_LENGTH, description: "The slave's symbol, e.g. GBPUSD.m (a name, not a regular expression)" });
const brokerFrom = Type.String({ maxLength: MAX_PATTERN_LENGTH, description: brokerDescription('comes from') });
const brokerTo = Type.String({ maxLength: MAX_PATTERN_LENGTH, description: brokerDescription('is copied to') });
const priority = Type.Integer({
  minimum: 0,
  maximum: MAX_PRIORITY,
  description:
    'Ascending: 0 is tried before 1. Of the mappings of a symbol that apply to the two brokers, the first whose `to` the slave offers is used; when none is offered, the symbol is not copied (SYMBOL_NOT_MAPPED) rather than guessed. Equal priorities: the older mapping first.',
});
const brokerToSuggestion = Type.Array(Type.String(), {
  readOnly: true,
  description:
    'Read-only. In the mappings in effect (symbolMappings/current, POST /accounts/{accountId}/symbolMappings): when the name alone finds several slave symbols, all of them (`to` is empty then and nothing is copied until a mapping chooses one); otherwise empty.',
});

export const SymbolMappingDTO = Type.Object(
  {
    id: Type.Optional(
      Type.Integer({
        format: 'int64',
        readOnly: true,
        description: 'Numbered per project (1, 2, 3 ... in creation order; never reused). In the mappings in effect: the project mapping used, if one was',
      }),
    ),
    projectId: Type.Optional(Type.String({ format: 'uuid', readOnly: true })),
    from: Type.String({ maxLength: MAX_SYMBOL_LENGTH, description: from.description }),
    to: Type.String({ maxLength: MAX_SYMBOL_LENGTH, description: `${to.description}; empty in the mappings in effect when the symbol is not copied` }),
    brokerFrom: Type.String({
      maxLength: MAX_PATTERN_LENGTH,
      description: `${brokerFrom.description} In the mappings in effect: the master account's loginServer.`,
    }),
    brokerTo: Type.String({
      maxLength: MAX_PATTERN_LENGTH,
      description: `${brokerTo.description} In the mappings in effect: the slave account's loginServer.`,
    }),
    priority: Type.Integer({
      minimum: 0,
      maximum: MAX_PRIORITY,
      description: `${priority.description} In the mappings in effect: the project mapping's, else 0.`,
    }),
    brokerToSuggestion: Type.Optional(brokerToSuggestion),
    // Ours, in the mappings in effect only.
    masterSymbol: Type.Optional(Type.String({ description: 'Ours, in the mappings in effect: the master symbol (as `from`)' })),
    slaveSymbol: Type.Optional(Nullable(Type.String({ description: 'Ours, in the mappings in effect: the slave symbol, null when not copied' }))),
    source: Type.Optional(
      Type.Union([Type.Literal('EXPLICIT'), Type.Literal('PROJECT'), Type.Literal('AUTOMATIC'), Type.Literal('UNMAPPED')], {
        readOnly: true,
        description:
          "Ours, in the mappings in effect: EXPLICIT, the copier's own mapping (PUT .../copiers/{copierId}/symbolMappings); PROJECT, a project mapping (`id`); AUTOMATIC, found by name (case, separators, broker affixes such as .m, pro, ecn); UNMAPPED: no unique slave symbol, not copied",
      }),
    ),
  },
  { $id: 'SymbolMappingDTO', additionalProperties: false },
);

/** The body of POST and PUT /projects/{projectId}/symbolMappings[/{id}]: the reference's members; the read-only ones are ignored. */
export const SymbolMappingWriteDTO = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'read-only: ignored (the path names the mapping)' })),
    projectId: Type.Optional(Type.String({ description: 'read-only: ignored (the path names the project)' })),
    from,
    to,
    brokerFrom,
    brokerTo,
    priority,
    brokerToSuggestion: Type.Optional(Type.Array(Type.String(), { description: 'read-only: ignored' })),
  },
  { $id: 'SymbolMappingWriteDTO', additionalProperties: false },
);

export const RequestSymbolMappingsDTO = Type.Object(
  {
    loginServer: Type.Optional(
      Type.String({
        maxLength: MAX_PATTERN_LENGTH,
        description: "The broker (loginServer) the symbols come from, matched against the mappings' brokerFrom; left out, only mappings for every broker apply",
      }),
    ),
    symbols: Type.Array(Type.String({ minLength: 1, maxLength: MAX_SYMBOL_LENGTH }), { maxItems: 1000, description: 'Master symbols, at most 1000' }),
  },
  { $id: 'RequestSymbolMappingsDTO', additionalProperties: false },
);

export const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const SymbolMappingParams = Type.Object(
  { projectId: Uuid, symbolMappingId: Type.Integer({ minimum: 1, maximum: MAX_PRIORITY }) },
  { additionalProperties: false },
);

/** Ours: a copier's explicit mapping, master symbol to slave symbol. */
export const CopierSymbolMappingDTO = Type.Object(
  {
    masterSymbol: Type.String({ minLength: 1, maxLength: 64, description: "the master broker's symbol name" }),
    slaveSymbol: Type.String({ minLength: 1, maxLength: 64, description: "the slave broker's name for it" }),
    source: Type.Optional(Type.Literal('EXPLICIT', { readOnly: true, description: 'answered: the copier’s own mapping' })),
  },
  { $id: 'CopierSymbolMappingDTO', additionalProperties: false },
);

/** The body of PUT .../copiers/{copierId}/symbolMappings: one entry per master symbol. */
export const CopierSymbolMappingWriteDTO = Type.Object(
  {
    masterSymbol: Type.String({ minLength: 1, maxLength: 64 }),
    slaveSymbol: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { $id: 'CopierSymbolMappingWriteDTO', additionalProperties: false },
);
