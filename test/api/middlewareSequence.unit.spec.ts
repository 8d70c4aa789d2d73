// Middleware run as one layer (api/dispatch.ts inSequence) and a router walked only by the requests of
// its first segments (underSegments), on a real HTTP server: each middleware runs in order with its own
// `next`, and an error passed to it, thrown, or a rejected promise skips the rest and reaches the
// router's error handling, as from layers of their own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { inSequence, underSegments } from '../../api/dispatch.js';

describe('middleware in sequence as one layer', () => {
  let server: http.Server;
  let base: string;
  let ran: string[] = [];

  const step =
    (name: string): RequestHandler =>
    (req, _res, next) => {
      ran.push(name);
      if (req.query.fail === name) return next(new Error(`passed by ${name}`));
      if (req.query.throw === name) throw new Error(`thrown by ${name}`);
      if (req.query.reject === name) return Promise.reject(new Error(`rejected by ${name}`)) as unknown as void;
      // The next one later, as a middleware that waits (a lane's slot, a key read) does.
      if (name === 'b') return void setImmediate(next);
      next();
    };

  before(async () => {
    const app = express();
    const docs = express.Router();
    docs.get('/docs', (_req, res) => void res.send('docs'));
    docs.get('/docs/init.js', (_req, res) => void res.send('init'));
    app.use(underSegments(['docs'], docs));
    app.use(
      inSequence(step('a'), step('b'), async (req, res, next) => {
        ran.push('c');
        await new Promise((resolve) => setImmediate(resolve));
        if (req.query.reject === 'c') throw new Error('rejected by c');
        next();
      }),
    );
    app.get('/thing', (_req, res) => void res.json({ ran }));
    const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => void res.status(500).json({ error: error.message, ran });
    app.use(onError);
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  /** Each request's own record of what ran. */
  const get = async (path: string) => {
    ran = [];
    const res = await fetch(`${base}${path}`);
    return { status: res.status, text: await res.text() };
  };

  it('runs each in order, then the routes after it', async () => {
    expect(await get('/thing')).to.deep.equal({ status: 200, text: JSON.stringify({ ran: ['a', 'b', 'c'] }) });
  });

  it('an error passed to next, thrown or rejected skips the rest and reaches the error handler', async () => {
    expect(await get('/thing?fail=a')).to.deep.equal({ status: 500, text: JSON.stringify({ error: 'passed by a', ran: ['a'] }) });
    expect(await get('/thing?throw=b')).to.deep.equal({ status: 500, text: JSON.stringify({ error: 'thrown by b', ran: ['a', 'b'] }) });
    expect(await get('/thing?reject=a')).to.deep.equal({ status: 500, text: JSON.stringify({ error: 'rejected by a', ran: ['a'] }) });
    expect(await get('/thing?reject=c')).to.deep.equal({ status: 500, text: JSON.stringify({ error: 'rejected by c', ran: ['a', 'b', 'c'] }) });
  });

  it('a router under its segments serves them (in any case) and lets every other request go on without it', async () => {
    expect(await get('/docs')).to.deep.equal({ status: 200, text: 'docs' });
    expect(ran).to.deep.equal([]);
    expect(await get('/DOCS/init.js')).to.deep.equal({ status: 200, text: 'init' });
    expect(ran).to.deep.equal([]);
    // Its segment, but no route of it: on to what follows, as a router does.
    expect((await get('/docs/nothing')).status).to.equal(404);
    expect(ran).to.deep.equal(['a', 'b', 'c']);
  });

  it('needs at least one middleware', () => {
    expect(() => inSequence()).to.throw(/at least one/);
  });
});
