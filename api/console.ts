// The web console at /console (issue 20): static files of console/ (preact + htm as ES modules served
// from node_modules through an import map: no build step, no CDN). It is only another client of the
// public REST API: the page carries no data and needs no key; the browser signs in with an API key kept
// in sessionStorage and sends it as X-API-KEY on each call.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { notFoundHandler } from './errors.js';

const require = createRequire(import.meta.url);
const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../console');

/** The browser modules the console imports by bare name (console/index.html's import map). */
const vendor: Readonly<Record<string, string>> = {
  'preact.mjs': require.resolve('preact'),
  'hooks.mjs': require.resolve('preact/hooks'),
  'htm.mjs': path.join(path.dirname(require.resolve('htm')), 'htm.mjs'),
};

export const consoleRoutes = (app: express.Express): void => {
  const index = path.join(consoleDir, 'index.html');
  const page = (_req: express.Request, res: express.Response) => {
    res.set('cache-control', 'no-cache').set('referrer-policy', 'no-referrer').sendFile(index);
  };
  app.get('/console', page);
  app.get('/console/', page);
  app.get('/console/vendor/:file', (req, res, next) => {
    const file = vendor[req.params.file];
    if (!file) return next();
    res.type('application/javascript').set('cache-control', 'public, max-age=3600').sendFile(file);
  });
  app.use('/console', express.static(consoleDir, { index: false, maxAge: '5m' }), notFoundHandler);
};
