// The web console at /console (issue 20): static files of console/ (preact + htm as ES modules served
// from node_modules through an import map: no build step, no CDN). It is only another client of the
// public REST API: the page carries no data and needs no key; the browser signs in with an API key kept
// in sessionStorage and sends it as X-API-KEY on each call. On a white-label brand's own host, /console is
// the brand's customer sign-in page instead, with the brand's customCss/customJavascript (consolePages.ts);
// both pages go out under a Content-Security-Policy.
import { createRequire } from 'node:module';
import path from 'node:path';
import express from 'express';
import { brandBySubdomain } from '../app/customers.js';
import { projectFile } from '../app/projectRoot.js';
import type { Services } from '../app/services.js';
import { BRAND_CSS, BRAND_JS, ConsolePages } from './consolePages.js';
import { notFoundHandler } from './errors.js';

const require = createRequire(import.meta.url);
const consoleDir = projectFile('console');

/** The browser modules the console imports by bare name (console/index.html's import map). */
const vendor: Readonly<Record<string, string>> = {
  'preact.mjs': require.resolve('preact'),
  'hooks.mjs': require.resolve('preact/hooks'),
  'htm.mjs': path.join(path.dirname(require.resolve('htm')), 'htm.mjs'),
};

export const consoleRoutes = (app: express.Express, services: Services): void => {
  const pages = new ConsolePages(path.join(consoleDir, 'index.html'));
  /** The brand whose subdomain is this request's host name, if any. */
  const brandOf = async (req: express.Request) => (req.hostname ? brandBySubdomain(services, req.hostname) : undefined);
  const page = (req: express.Request, res: express.Response, next: express.NextFunction) => {
    brandOf(req).then((brand) => {
      res
        .set('cache-control', 'no-cache')
        .set('referrer-policy', 'no-referrer')
        .set('content-security-policy', pages.policy)
        .set('x-content-type-options', 'nosniff')
        .type('html')
        .send(brand ? pages.brand(brand.settings) : pages.plain);
    }, next);
  };
  /** The brand's own file, as stored: on its host only, never on another brand's nor the plain console's. */
  const brandFile = (type: string, member: 'customCss' | 'customJavascript') => (req: express.Request, res: express.Response, next: express.NextFunction) => {
    brandOf(req).then((brand) => {
      const text = brand?.settings[member] ?? '';
      if (!text.trim()) return next();
      res.set('cache-control', 'no-cache').set('x-content-type-options', 'nosniff').type(type).send(text);
    }, next);
  };
  app.get('/console', page);
  app.get('/console/', page);
  app.get('/console/index.html', page);
  app.get(BRAND_CSS, brandFile('text/css; charset=utf-8', 'customCss'));
  app.get(BRAND_JS, brandFile('application/javascript; charset=utf-8', 'customJavascript'));
  app.get('/console/vendor/:file', (req, res, next) => {
    const file = vendor[req.params.file];
    if (!file) return next();
    res.type('application/javascript').set('cache-control', 'public, max-age=3600').sendFile(file);
  });
  app.use('/console', express.static(consoleDir, { index: false, maxAge: '5m' }), notFoundHandler);
};
