// What /ready and /metrics watch (api/health.ts): with the copy engine partitioned, each partition's
// checkpoint row, not the unpartitioned engine's, which no partitioned instance moves.
import { expect } from 'chai';
import { isCopyEngineCheckpoint, watchedProcessors } from '../../api/health.js';
import type { Services } from '../../app/services.js';

const services = (copyEnginePartitions: number) =>
  ({ runner: { names: ['accounts'] }, config: { copyEnginePartitions } }) as unknown as Pick<Services, 'runner' | 'config'>;

describe('/ready and /metrics: the processors watched', () => {
  it('one engine: its checkpoint row', () => expect(watchedProcessors(services(1))).to.deep.equal(['projection:accounts', 'copy-engine', 'webhooks']));

  it('a partitioned engine: every partition', () =>
    expect(watchedProcessors(services(3))).to.deep.equal(['projection:accounts', 'copy-engine/3/0', 'copy-engine/3/1', 'copy-engine/3/2', 'webhooks']));

  it("tells the engine's rows from the others", () =>
    expect(['copy-engine', 'copy-engine/3/1', 'copy-engine-fence-x', 'projection:copies'].map(isCopyEngineCheckpoint)).to.deep.equal([
      true,
      true,
      false,
      false,
    ]));
});
