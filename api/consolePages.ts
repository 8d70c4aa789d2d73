// The console's two pages and their Content-Security-Policy (issue 23):
// - the plain console (console/index.html, app.js: sign in with an API key), on any host that is no brand's;
// - a brand's console, on the brand's own host (the Host header equals its FeatureWhiteLabelDTO.subdomain,
//   which GET /projects/{projectId}/whitelabel/dns checks points here): the customer sign-in page
//   (console/customer.js: e-mail → code → session → its projects) in the brand's look, with the brand's
//   customCss and customJavascript as two resources of that host, /console/brand/custom.css and
//   /console/brand/custom.js. They are stored text the server never evaluates nor parses; another brand's
//   host serves its own, and any other host serves neither (404).
// Both pages are served under a policy that lets a browser run only same-origin script and style files
// plus the one inline block of ours, the import map (by its SHA-256): any other inline script, inline
// style element, eval, plugin, frame or foreign script is refused. The brand's script runs in the brand's
// own origin, so it never shares storage with the plain console or another brand.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** What a brand's page shows and serves; from FeatureWhiteLabelDTO. */
export interface BrandPage {
  readonly name: string;
  readonly subdomain: string;
  readonly customCss: string;
  readonly customJavascript: string;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The paths of a brand's own resources (served on its host only). */
export const BRAND_CSS = '/console/brand/custom.css';
export const BRAND_JS = '/console/brand/custom.js';

export class ConsolePages {
  /** The plain console as it is on disk. */
  readonly plain: string;
  /** The policy of both pages. */
  readonly policy: string;

  constructor(indexFile: string) {
    this.plain = readFileSync(indexFile, 'utf8');
    const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(this.plain);
    if (!importMap) throw new Error(`${indexFile} has no import map`);
    const hash = createHash('sha256').update(importMap[1]!, 'utf8').digest('base64');
    this.policy = [
      "default-src 'none'",
      `script-src 'self' 'sha256-${hash}'`,
      "style-src 'self'",
      "img-src 'self' https: data:",
      "font-src 'self' https:",
      "connect-src 'self'",
      "manifest-src 'self'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "object-src 'none'",
    ].join('; ');
  }

  /** The brand's page: the customer sign-in module instead of the key console, and the brand's files when it has them. */
  brand(brand: BrandPage): string {
    const css = brand.customCss.trim() ? `\n    <link rel="stylesheet" href="${BRAND_CSS}" />` : '';
    const js = brand.customJavascript.trim() ? `\n    <script src="${BRAND_JS}" defer></script>` : '';
    return this.plain
      .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(brand.name)}</title>`)
      .replace('<link rel="stylesheet" href="/console/style.css" />', `<link rel="stylesheet" href="/console/style.css" />${css}`)
      .replace('<script type="module" src="/console/app.js"></script>', `<script type="module" src="/console/customer.js"></script>${js}`)
      .replace('<body>', `<body data-brand="${escapeHtml(brand.subdomain)}">`);
  }
}
