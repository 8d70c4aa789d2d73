// A white-label brand's console in a real browser (issue 23): playwright-core driving Debian's Chromium,
// which resolves two brands' host names to the started service (--host-resolver-rules), so each brand's
// page is served on its own origin as it would be behind its DNS records. The brand's customCss and
// customJavascript apply on its page only, under a Content-Security-Policy that refuses any inline script;
// another brand's page gets its own, the plain console neither. A customer signs in with the code the
// service mailed to a local SMTP server (smtp-server), sees its projects and creates one.
// Without a browser the specs are skipped, saying so (as test/console/console.e2e.spec.ts).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { eventually, featureBody } from '../support/trading.js';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string =>
  Boolean(p),
);
const browserPath = CANDIDATES.find((p) => existsSync(p)) ?? null;
const SHOTS = path.resolve('test-results/console');
const A = 'trade.acme.test';
const B = 'trade.other.test';
const OTHER_PROJECT = '79797979-7979-4979-8979-797979797979';
const OTHER_KEY = 'wl-console-other-brand-project-key-1';

/** The brand's script marks the page, and tries an inline script, which the policy must refuse. */
const brandScript = (marker: string) => `document.documentElement.dataset.brandScript = ${JSON.stringify(marker)};
const inline = document.createElement('script');
inline.textContent = 'window.inlineRan = true;';
document.head.appendChild(inline);`;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  `--host-resolver-rules=MAP ${A} 127.0.0.1, MAP ${B} 127.0.0.1`,
];

describe('a white-label brand console in a browser', function () {
  this.timeout(180_000);
  let t: TestService;
  let smtp: FakeSmtp;
  let context: BrowserContext;
  let profile: string;
  let port: string;
  const violations: string[] = [];

  const open = async (host: string) => {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(`${host}: ${m.text()}`);
    });
    const res = await page.goto(`http://${host}:${port}/console`);
    expect(res?.status()).to.equal(200);
    return { page, csp: res!.headers()['content-security-policy'] ?? '' };
  };
  // Evaluated in the page (the spec's TypeScript has no DOM types).
  const styleOf = (page: Page) => page.evaluate<string>("getComputedStyle(document.querySelector('h1')).color");
  const marks = (page: Page) =>
    page.evaluate<{ script: string | null; inlineRan: boolean }>(
      '({ script: document.documentElement.dataset.brandScript ?? null, inlineRan: window.inlineRan ?? false })',
    );
  /** A same-origin GET from the page (as the page's own code could). */
  const fetchIn = (page: Page, path: string) =>
    page.evaluate<{ status: number; text: string }>(`fetch(${JSON.stringify(path)}).then(async (r) => ({ status: r.status, text: await r.text() }))`);
  const SCRIPT_RAN = 'document.documentElement.dataset.brandScript !== undefined';

  before(async function () {
    if (!browserPath) {
      console.log(`    Browser specs skipped: no Chromium found (looked at ${CANDIDATES.join(', ')}).`);
      this.skip();
    }
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startFakeSmtp();
    t = await startTestService({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'Operator <ops@operator.test>' } });
    port = new URL(t.url).port;
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    const brand = (subdomain: string, name: string, colour: string, marker: string) =>
      featureBody({
        type: 'FeatureWhiteLabelDTO',
        name,
        logo: `https://${subdomain}/logo.svg`,
        subdomain,
        stripeApiKey: '',
        authPageBackground: '#f0f0f0',
        customCss: `h1 { color: ${colour}; }`,
        customJavascript: brandScript(marker),
      });
    const a = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, { body: brand(A, 'Acme Trading', 'rgb(1, 2, 3)', 'acme') });
    expect(a.status, JSON.stringify(a.body)).to.equal(200);
    const b = await t.call('POST', `/projects/${OTHER_PROJECT}/features`, { key: OTHER_KEY, body: brand(B, 'Other Brand', 'rgb(4, 5, 6)', 'other') });
    expect(b.status, JSON.stringify(b.body)).to.equal(200);
    profile = mkdtempSync(path.join(os.tmpdir(), 'ct-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: browserPath!,
      args: ARGS,
      headless: true,
      viewport: { width: 1280, height: 900 },
    });
    // 8 specs may share 2 cores: generous, never retried.
    context.setDefaultTimeout(45_000);
  });

  after(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await t?.stop();
    await smtp?.close();
  });

  it("serves the brand's CSS and script on its own host only, under a policy that refuses inline script", async () => {
    const { page, csp } = await open(A);
    expect(csp).to.match(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).to.include("style-src 'self'");
    expect(csp).to.include("object-src 'none'");
    await page.getByRole('heading', { name: 'Acme Trading' }).waitFor();
    expect(await styleOf(page)).to.equal('rgb(1, 2, 3)');
    await page.waitForFunction(SCRIPT_RAN);
    expect(await marks(page)).to.deep.equal({ script: 'acme', inlineRan: false });
    await eventually(async () => (violations.some((v) => v.startsWith(A)) ? true : undefined), 10_000, 'the refused inline script reported');
    expect(await page.title()).to.equal('Acme Trading');
    await page.close();

    const other = await open(B);
    await other.page.getByRole('heading', { name: 'Other Brand' }).waitFor();
    await other.page.waitForFunction(SCRIPT_RAN);
    expect(await styleOf(other.page)).to.equal('rgb(4, 5, 6)');
    expect((await marks(other.page)).script, "the other brand's own script, never Acme's").to.equal('other');
    expect((await fetchIn(other.page, '/console/brand/custom.css')).text).to.equal('h1 { color: rgb(4, 5, 6); }');
    expect((await fetchIn(other.page, '/console/brand/custom.js')).text).to.include('"other"');
    await other.page.close();

    const plain = await open('127.0.0.1');
    expect(plain.csp).to.equal(csp);
    await plain.page.getByLabel('API key').waitFor();
    expect(await marks(plain.page)).to.deep.equal({ script: null, inlineRan: false });
    expect(await plain.page.locator('link[href*="brand"], script[src*="brand"]').count()).to.equal(0);
    for (const file of ['custom.css', 'custom.js']) {
      expect((await fetchIn(plain.page, `/console/brand/${file}`)).status, file).to.equal(404);
    }
    await plain.page.close();
  });

  it('signs a customer in with the code mailed to it; it sees its projects and creates one', async () => {
    const { page } = await open(A);
    await page.getByLabel('E-mail').fill('jane@acme.test');
    const before = smtp.mails.length;
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByRole('status').filter({ hasText: 'We sent a code to register' }).waitFor();
    const code = await smtp.codeFor('jane@acme.test', before);
    await page.getByLabel('Code').fill('00000000' === code ? '11111111' : '00000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'CUSTOMER_CODE_INVALID' }).waitFor();
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your projects', level: 1 }).waitFor();
    await page.getByText('No project yet.').waitFor();
    await page.getByLabel('Project name').fill('Jane desk');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('cell', { name: 'Jane desk' }).waitFor();
    const key = await page.getByTestId('new-key').textContent();
    const projectId = await page.locator('tr[data-project]').first().getAttribute('data-project');
    const project = await t.call('GET', `/projects/${projectId}`, { key: key! });
    expect(project.status).to.equal(200);
    expect(project.body).to.include({ name: 'Jane desk', blocked: false });
    expect(project.body.owner.email).to.equal('jane@acme.test');
    await page.screenshot({ path: path.join(SHOTS, 'brand-projects.png'), fullPage: true });
    expect(
      violations.filter((v) => !v.includes('inline')),
      'nothing of ours is refused by the policy',
    ).to.deep.equal([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('E-mail').waitFor();
    await page.close();
  });
});
