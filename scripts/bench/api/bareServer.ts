// The limit of the API benchmark: a bare express app (the service's express version, no auth, no
// database) whose two routes answer the JSON our service answered, held in memory and serialized per
// request as res.json does.
//   node --import tsx bareServer.ts <file with { account, accounts }>
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';

const bodies = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { account: unknown; accounts: unknown };
const app = express();
app.get('/rest/api/v1/accounts/:accountId', (_req, res) => {
  res.json(bodies.account);
});
app.get('/rest/api/v1/accounts', (_req, res) => {
  res.json(bodies.accounts);
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/api/v1`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
