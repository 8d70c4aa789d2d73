// The rule of log acknowledgement: an acknowledgement names entries of its own project (checked by the
// application layer against the read model before the command is made), each once, at most
// MAX_ACKNOWLEDGED_AT_ONCE at a time; acknowledging nothing changes nothing. Acknowledging an entry
// twice is harmless: it stays acknowledged. There is no state to keep: the read model holds the flags.
import type { Decider } from '../shared/command.js';
import { invalid } from '../shared/errors.js';
import type { AccountLogCommand } from './commands.js';
import type { AccountLogEvent } from './events.js';

export const MAX_ACKNOWLEDGED_AT_ONCE = 1000;

export type LogAcknowledgements = Record<string, never>;

export const decide = (command: AccountLogCommand, _state: LogAcknowledgements): AccountLogEvent[] => {
  switch (command.type) {
    case 'AcknowledgeLogs': {
      const logIds = [...new Set(command.data.logIds)].sort((a, b) => a - b);
      if (logIds.length === 0) return [];
      if (logIds.length > MAX_ACKNOWLEDGED_AT_ONCE) throw invalid('[VALIDATION_FAILED]', `at most ${MAX_ACKNOWLEDGED_AT_ONCE} log ids at once`);
      return [{ type: 'LogsAcknowledged', data: { projectId: command.data.projectId, logIds, at: command.metadata.now } }];
    }
    case 'AcknowledgeAllLogs':
      return [{ type: 'AllLogsAcknowledged', data: { projectId: command.data.projectId, at: command.metadata.now } }];
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const accountLogDecider: Decider<AccountLogCommand, AccountLogEvent, LogAcknowledgements> = {
  decide,
  evolve: (state) => state,
  initialState: {},
};
