// npm run replay -- --account ID [--until ISO] [--json]: an account's events in order, who made each
// change and from where, and the state they fold to. For auditors.
import { DateTime } from 'luxon';
import { validate as isUuid } from 'uuid';
import { accountDecider } from '../domain/account/decider.js';
import { type AccountEvent, accountStream } from '../domain/account/events.js';
import { StreamNotFoundError } from '../store/errors.js';
import type { RecordedEvent } from '../store/port.js';
import { connect, parseArgs } from './support/connect.js';

const hideSecrets = (value: unknown): unknown => JSON.parse(JSON.stringify(value), (key, v: unknown) => (key === 'passwordCiphertext' ? '***' : v));

const replayAccount = async (events: AsyncIterable<{ event: RecordedEvent }>, until: Date | null) => {
  let state = accountDecider.initialState;
  const lines: { revision: string; created: string; type: string; who: Record<string, unknown>; data: unknown }[] = [];
  for await (const { event } of events) {
    if (until && event.created > until) break;
    state = accountDecider.evolve(state, { type: event.type, data: event.data } as AccountEvent);
    const m = event.metadata;
    lines.push({
      revision: event.revision.toString(),
      created: event.created.toISOString(),
      type: event.type,
      who: {
        apiKeyId: m.apiKeyId ?? null,
        clientIp: m.clientIp ?? null,
        method: m.method ?? null,
        path: m.path ?? null,
        correlationId: m.correlationId ?? null,
      },
      data: hideSecrets(event.data),
    });
  }
  return { events: lines, state: hideSecrets(state) };
};

const main = async (): Promise<number> => {
  const args = parseArgs(process.argv.slice(2), ['account', 'until', 'json', 'help']);
  const accountId = args.get('account')?.[0];
  if (args.has('help') || !accountId) {
    console.log('usage: npm run replay -- --account ID [--until ISO-8601] [--json]');
    return args.has('help') ? 0 : 2;
  }
  if (!isUuid(accountId)) throw new Error(`--account must be a UUID, got ${accountId}`);
  const untilText = args.get('until')?.[0];
  let until: Date | null = null;
  if (untilText) {
    const parsed = DateTime.fromISO(untilText, { setZone: true });
    if (!parsed.isValid) throw new Error(`--until must be an ISO 8601 time, got ${untilText}`);
    until = parsed.toJSDate();
  }
  const { store, close } = await connect();
  try {
    const result = await replayAccount(store.readStream(accountStream(accountId)), until);
    if (args.has('json')) {
      console.log(JSON.stringify(result, null, 2));
      return 0;
    }
    console.log(`account ${accountId}: ${result.events.length} events${until ? ` until ${until.toISOString()}` : ''}`);
    for (const e of result.events) {
      const who = e.who;
      console.log(`\n#${e.revision} ${e.created} ${e.type}`);
      console.log(
        `  by key ${who.apiKeyId ?? '(system)'} from ${who.clientIp ?? '-'} ${who.method ?? ''} ${who.path ?? ''} correlation ${who.correlationId ?? '-'}`,
      );
      console.log(`  ${JSON.stringify(e.data)}`);
    }
    console.log('\nstate:');
    console.log(JSON.stringify(result.state, null, 2));
    return 0;
  } catch (error) {
    if (error instanceof StreamNotFoundError) {
      console.error(`no account ${accountId} in the event store`);
      return 1;
    }
    throw error;
  } finally {
    await close();
  }
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`replay failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
