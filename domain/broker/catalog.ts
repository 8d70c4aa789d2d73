// The brokers of an account type (GET /brokers/{brokerType}/all): a curated list shipped with the
// service (data/brokers/brokers.json), the operator's own list merged over it (DATA_DIR/brokers.json),
// and the simulated venue under every type. Pure: the files are read by app/brokers.ts.
//
// Both files have one shape (BrokerFile below). The merge, per account type:
//   - an operator list with replaceShipped: true drops the shipped brokers of that type;
//   - an operator broker whose name equals a shipped one (case and surrounding blanks aside) replaces it
//     where it stood; any other operator broker follows the shipped ones, in the file's order;
//   - the simulated venue comes last, with its servers, whatever the files say (an entry of a file with
//     its name is left out).

export interface Broker {
  readonly name: string;
  /** Server names as a client sends them in loginServer; empty when the platform has none to choose. */
  readonly servers: readonly string[];
  /** Where the entry comes from: the shipped list's source, the operator's, or the built-in venue. */
  readonly source: string;
  /** The built-in simulated venue, where every account trades until a real adapter exists. */
  readonly simulated: boolean;
}

export interface BrokerFileEntry {
  readonly name: string;
  readonly servers?: readonly string[];
  readonly website?: string;
}

export interface BrokerFileList {
  readonly accountTypeId: number;
  /** The platform family the list was curated for (the account type names are neutral). */
  readonly platform?: string;
  readonly source?: string;
  readonly replaceShipped?: boolean;
  readonly brokers: readonly BrokerFileEntry[];
}

export interface BrokerFile {
  readonly source?: string;
  readonly accountTypes: readonly BrokerFileList[];
}

export const MAX_BROKERS_PER_TYPE = 1000;
export const MAX_SERVERS_PER_BROKER = 200;
const MAX_TEXT = 200;

const brokerKey = (name: string): string => name.trim().toLowerCase();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown, max = MAX_TEXT): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= max;

const unknownMembers = (value: Record<string, unknown>, known: readonly string[], at: string): string | null => {
  const extra = Object.keys(value).find((k) => !known.includes(k));
  return extra === undefined ? null : `${at}.${extra}: unknown member (known: ${known.join(', ')})`;
};

/** The problem with a parsed brokers file, or null when it is one (`isType` tells the account type ids). */
export const checkBrokerFile = (file: unknown, isType: (id: number) => boolean): string | null => {
  if (!isObject(file)) return 'the file must hold an object with accountTypes';
  const top = unknownMembers(file, ['source', 'accountTypes', '$comment'], '$');
  if (top) return top;
  if (file.source !== undefined && !isText(file.source, 2000)) return '$.source: a text of 1 to 2000 characters';
  if (!Array.isArray(file.accountTypes)) return '$.accountTypes: an array';
  for (const [i, list] of (file.accountTypes as unknown[]).entries()) {
    const at = `$.accountTypes[${i}]`;
    if (!isObject(list)) return `${at}: an object`;
    const extra = unknownMembers(list, ['accountTypeId', 'platform', 'source', 'replaceShipped', 'brokers', '$comment'], at);
    if (extra) return extra;
    if (typeof list.accountTypeId !== 'number' || !Number.isInteger(list.accountTypeId) || !isType(list.accountTypeId)) {
      return `${at}.accountTypeId: an account type id (GET /types/accountTypes)`;
    }
    if (list.platform !== undefined && !isText(list.platform)) return `${at}.platform: a text of 1 to ${MAX_TEXT} characters`;
    if (list.source !== undefined && !isText(list.source, 2000)) return `${at}.source: a text of 1 to 2000 characters`;
    if (list.replaceShipped !== undefined && typeof list.replaceShipped !== 'boolean') return `${at}.replaceShipped: true or false`;
    if (!Array.isArray(list.brokers) || list.brokers.length > MAX_BROKERS_PER_TYPE) return `${at}.brokers: an array of at most ${MAX_BROKERS_PER_TYPE}`;
    const names = new Set<string>();
    for (const [j, broker] of (list.brokers as unknown[]).entries()) {
      const b = `${at}.brokers[${j}]`;
      if (!isObject(broker)) return `${b}: an object`;
      const extraB = unknownMembers(broker, ['name', 'servers', 'website', '$comment'], b);
      if (extraB) return extraB;
      if (!isText(broker.name)) return `${b}.name: a text of 1 to ${MAX_TEXT} characters`;
      const key = brokerKey(broker.name);
      if (names.has(key)) return `${b}.name: ${broker.name} is listed twice for this account type`;
      names.add(key);
      if (broker.website !== undefined && !isText(broker.website)) return `${b}.website: a text of 1 to ${MAX_TEXT} characters`;
      if (broker.servers !== undefined) {
        if (!Array.isArray(broker.servers) || broker.servers.length > MAX_SERVERS_PER_BROKER)
          return `${b}.servers: an array of at most ${MAX_SERVERS_PER_BROKER}`;
        if (!(broker.servers as unknown[]).every((s) => isText(s))) return `${b}.servers: texts of 1 to ${MAX_TEXT} characters`;
      }
    }
  }
  return null;
};

const entriesOf = (file: BrokerFile | null, accountTypeId: number, fallbackSource: string) => {
  const lists = (file?.accountTypes ?? []).filter((l) => l.accountTypeId === accountTypeId);
  return {
    replaceShipped: lists.some((l) => l.replaceShipped === true),
    brokers: lists.flatMap((l) =>
      l.brokers.map((b): Broker => ({
        name: b.name.trim(),
        servers: [...new Set(b.servers ?? [])],
        source: l.source ?? file?.source ?? fallbackSource,
        simulated: false,
      })),
    ),
  };
};

/** The brokers of one account type: the shipped list, the operator's merged over it, the simulated venue last. */
export const brokersOfType = (
  accountTypeId: number,
  shipped: BrokerFile,
  operator: BrokerFile | null,
  simulated: { readonly name: string; readonly servers: readonly string[] },
): Broker[] => {
  const own = entriesOf(operator, accountTypeId, 'the operator (DATA_DIR/brokers.json)');
  const base = own.replaceShipped ? [] : entriesOf(shipped, accountTypeId, 'shipped with the service').brokers;
  const byName = new Map(own.brokers.map((b) => [brokerKey(b.name), b]));
  const merged = base.map((b) => {
    const replacement = byName.get(brokerKey(b.name));
    if (replacement) byName.delete(brokerKey(b.name));
    return replacement ?? b;
  });
  const added = own.brokers.filter((b) => byName.get(brokerKey(b.name)) === b);
  const venue: Broker = { name: simulated.name, servers: simulated.servers, source: 'built in: the simulated venue', simulated: true };
  // the simulated venue is the service's, whatever a file calls a broker
  return [...merged, ...added].filter((b) => brokerKey(b.name) !== brokerKey(venue.name)).concat(venue);
};
