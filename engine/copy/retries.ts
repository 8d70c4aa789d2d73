// Resending a refused open (CopierDTO openRetry, openRetryTimeoutInMinutes): every 30 seconds while its
// window runs (no end with a timeout of 0), the master still holds the position and the copier still
// copies new trades; otherwise the retry ends with a skip that says why.
import { v5 as uuidv5 } from 'uuid';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { type CopySource, retryWindowInWords } from '../../domain/copy/events.js';
import type { OpenAction } from '../../domain/copy/types.js';
import { protectionSkip } from '../../domain/protection/blocks.js';
import { executeActions } from './executor.js';
import type { HandlerKit } from './handlerKit.js';
import { COPY_EVENT_NAMESPACE } from './outcomes.js';

export const handleRetry = async (kit: HandlerKit, clientOrderId: string): Promise<void> => {
  const { db, clock } = kit.deps;
  const retry = await db.selectFrom('copy_retries').selectAll().where('client_order_id', '=', clientOrderId).executeTakeFirst();
  if (!retry) return;
  const copier = await kit.inputs.copier(retry.copier_id);
  if (!copier) return;
  const action = retry.action as OpenAction;
  const source = retry.source as CopySource;
  const masterAccountId = retry.master_account_id;
  const giveUp = (message: string) =>
    kit.outcomes.appendWithIds(
      copier,
      masterAccountId,
      source,
      [
        {
          id: uuidv5(`${clientOrderId}/expired`, COPY_EVENT_NAMESPACE),
          event: kit.skipped(copier, masterAccountId, source, action.masterPositionId, 'OPEN_RETRY_EXPIRED', message),
        },
      ],
      false,
    );
  const until = new Date(retry.retry_until).toISOString();
  if (new Date(retry.retry_until).getTime() <= clock().getTime()) {
    await giveUp(`open of master #${action.masterPositionId} given up: the broker kept refusing it ${retryWindowInWords(until)} (openRetryTimeoutInMinutes)`);
    return;
  }
  const masterStillHolds = await db
    .selectFrom('positions')
    .select('id')
    .where('account_id', '=', masterAccountId)
    .where('id', '=', action.masterPositionId)
    .executeTakeFirst();
  const settings = copier.settings as CopierSettings;
  if (!masterStillHolds || !settings.active || settings.monitorOnly || !settings.openRetry) {
    const why = !masterStillHolds
      ? 'the master closed the position'
      : !settings.openRetry
        ? 'openRetry was turned off'
        : 'the copier no longer copies new trades';
    await giveUp(`open of master #${action.masterPositionId} no longer retried: ${why}`);
    return;
  }
  const slave = await kit.inputs.slave(copier.to_account_id);
  if (!slave.ok) return;
  // Tried again at the next interval while a protection holds new opens back.
  if (protectionSkip(slave.protections, action.symbol, copier.id)) return;
  const events = await executeActions([action], kit.executionContext(copier, masterAccountId, source, null, slave, false));
  const executed = events.find((e) => e.type === 'CopyExecuted');
  if (!executed) return;
  await kit.outcomes.appendWithIds(copier, masterAccountId, source, [{ id: uuidv5(`${clientOrderId}/retried`, COPY_EVENT_NAMESPACE), event: executed }], false);
};
