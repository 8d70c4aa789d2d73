// The brokers of an account type (GET /brokers/{brokerType}/all): the list shipped in the repository
// (data/brokers/brokers.json), the operator's own list merged over it (DATA_DIR/brokers.json, the same
// shape; domain/broker/catalog.ts has the merge) and the simulated venue's servers under every type.
//
// The service checks the operator's file at start (a file that is not valid JSON or not a brokers
// file stops the start, naming the problem), then reads it again whenever it changes (its size or
// modification time), so an operator extends the list without a restart. A change that breaks the file
// is logged as an error and the last good list is kept.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isAccountType } from '../domain/account/enums.js';
import { type Broker, type BrokerFile, brokersOfType, checkBrokerFile } from '../domain/broker/catalog.js';
import { SIMULATED_SERVERS } from '../engine/venues/simulated/servers.js';
import { SIMULATED_VENUE_NAME } from '../engine/venues/host.js';
import type { Logger } from './logger.js';
import { projectFile } from './projectRoot.js';

export const SHIPPED_BROKERS_FILE = projectFile('data/brokers/brokers.json');
export const OPERATOR_BROKERS_FILE_NAME = 'brokers.json';

/** A brokers file read and checked; throws with the file's name and the problem. */
export const readBrokerFile = (file: string): BrokerFile => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not a JSON file (${(error as Error).message})`);
  }
  const problem = checkBrokerFile(parsed, isAccountType);
  if (problem) throw new Error(`${file}: ${problem}`);
  return parsed as BrokerFile;
};

let shipped: BrokerFile | null = null;
const shippedBrokers = (): BrokerFile => (shipped ??= readBrokerFile(SHIPPED_BROKERS_FILE));

interface OperatorFile {
  readonly stamp: string;
  readonly file: BrokerFile | null;
}

/** The operator's file by DATA_DIR: the last good read, and the size and time it was read at. */
const operatorFiles = new Map<string, OperatorFile>();

const stampOf = (file: string): string | null => {
  try {
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

const operatorBrokers = (dataDir: string, log: Pick<Logger, 'error'>): BrokerFile | null => {
  const file = path.join(dataDir, OPERATOR_BROKERS_FILE_NAME);
  const stamp = stampOf(file);
  const known = operatorFiles.get(dataDir);
  if (stamp === null) {
    operatorFiles.set(dataDir, { stamp: 'none', file: null });
    return null;
  }
  if (known?.stamp === stamp) return known.file;
  try {
    const read = readBrokerFile(file);
    operatorFiles.set(dataDir, { stamp, file: read });
    return read;
  } catch (error) {
    log.error('the operator brokers file is invalid: the last good list is kept', error);
    operatorFiles.set(dataDir, { stamp, file: known?.file ?? null });
    return known?.file ?? null;
  }
};

/** At start: the shipped list and the operator's file (when there is one) must be valid brokers files. */
export const checkBrokerFiles = (dataDir: string): void => {
  shippedBrokers();
  const file = path.join(dataDir, OPERATOR_BROKERS_FILE_NAME);
  const stamp = stampOf(file);
  operatorFiles.set(dataDir, stamp === null ? { stamp: 'none', file: null } : { stamp, file: readBrokerFile(file) });
};

/** The brokers of an account type, or null when the id is no account type. */
export const listBrokers = (accountTypeId: number, dataDir: string, log: Pick<Logger, 'error'>): Broker[] | null => {
  if (!isAccountType(accountTypeId)) return null;
  return brokersOfType(accountTypeId, shippedBrokers(), operatorBrokers(dataDir, log), { name: SIMULATED_VENUE_NAME, servers: SIMULATED_SERVERS });
};
