// Interactive API documentation at /rest/api/v1/docs: Swagger UI (swagger-ui-dist, served from
// node_modules by the service itself: no CDN) on our served OpenAPI document. "Try it out" sends the
// X-API-KEY the reader enters under Authorize (the document's ApiKeyAuth scheme); a key the console
// signed in with (sessionStorage, this tab) is filled in already. No key is needed to read the page.
import { createRequire } from 'node:module';
import path from 'node:path';
import express from 'express';
import { notFoundHandler } from './errors.js';
import { API_PREFIX } from './openapi.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist'));

/** The session storage entry the console keeps its key in (console/app.js reads the same name). */
export const CONSOLE_KEY_STORAGE = 'copytrade.apiKey';

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Copy-trading service API</title>
  <link rel="stylesheet" href="${API_PREFIX}/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="${API_PREFIX}/docs/assets/favicon-32x32.png">
</head>
<body>
  <main id="swagger-ui" aria-label="API documentation"></main>
  <script src="${API_PREFIX}/docs/assets/swagger-ui-bundle.js"></script>
  <script src="${API_PREFIX}/docs/init.js"></script>
</body>
</html>
`;

const init = `'use strict';
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${API_PREFIX}/openapi.json`)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: false,
  // About a hundred operations: tags start folded (a click opens one) and the models section is left
  // out, so the page renders at once even on a slow machine.
  docExpansion: 'none',
  defaultModelsExpandDepth: -1,
  persistAuthorization: false,
  validatorUrl: null,
  onComplete: function () {
    var key = null;
    try { key = window.sessionStorage.getItem(${JSON.stringify(CONSOLE_KEY_STORAGE)}); } catch (e) { key = null; }
    if (key) window.ui.preauthorizeApiKey('ApiKeyAuth', key);
  },
});
`;

/** GET /docs (the page), /docs/init.js, /docs/assets/* (Swagger UI's files); mounted before authentication. */
export const docsRoutes = (api: express.Router): void => {
  api.get('/docs', (_req, res) => {
    res.type('html').set('cache-control', 'no-cache').send(page);
  });
  api.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').set('cache-control', 'no-cache').send(init);
  });
  api.use('/docs/assets', express.static(swaggerDir, { index: false, maxAge: '1h' }), notFoundHandler);
};
