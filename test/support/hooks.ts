// Mocha root hooks: the shared embedded PostgreSQL stops after the last suite.
import { stopTestPostgres } from './postgres.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60000);
    await stopTestPostgres();
  },
};
