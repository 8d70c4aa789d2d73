// Mocha root hooks: the shared embedded PostgreSQL stops after the last suite, and the run's temporary folders go.
import { stopTestPostgres } from './postgres.js';
import { removeTempDirs } from './tempDirs.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60000);
    await stopTestPostgres();
    removeTempDirs();
  },
};
