// The console in a real browser (issue 20): playwright-core driving Debian's Chromium against a started
// service. Sign in, the accounts and the copy network, a master's page, a position opened from the
// console and its copy on the slave, a skip reason in words, the timeline at an instant before the
// trade, a restricted key, the API docs. Screenshots go to test-results/console (ignored by git).
// Without a browser (no /usr/bin/chromium nor CHROMIUM_PATH) the specs are skipped, saying so.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestService, type TestService, validAccount } from '../support/service.js';
import { bookWhere, featureBody, marketHoursClock, pinQuotes } from '../support/trading.js';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string =>
  Boolean(p),
);
const browserPath = CANDIDATES.find((p) => existsSync(p)) ?? null;
const SHOTS = path.resolve('test-results/console');

/** Flags that keep Chromium from reaching out on a closed network (else it hangs), as a fresh profile. */
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
];

describe('console in a browser', function () {
  this.timeout(120_000);
  let t: TestService;
  let base: string;
  let context: BrowserContext;
  let profile: string;
  let master: string;
  let slave: string;
  let watcher: string;
  let slaveKey: string;

  const account = async (alias: string, login: string) => {
    const res = await t.call('POST', '/accounts', { body: validAccount({ alias, loginServer: 'Sim-Demo', loginAccountNumber: login }) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((await t.call('POST', `/accounts/${res.body.id}/actions/start`)).status).to.equal(200);
    return { id: res.body.id as string, key: res.headers.get('x-account-api-key')! };
  };

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  const signIn = async (page: Page, key: string) => {
    await page.goto(`${base}/console`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  };

  before(async function () {
    if (!browserPath) {
      console.log(
        `    Browser specs skipped: no Chromium found (looked at ${CANDIDATES.join(', ')}). Install one with \`apt-get install chromium\` or set CHROMIUM_PATH.`,
      );
      this.skip();
    }
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestService({ clock: marketHoursClock() });
    base = t.url.replace(/\/rest\/api\/v1$/, '');
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
    master = (await account('console master', `${process.pid}81`)).id;
    const s = await account('console slave', `${process.pid}82`);
    slave = s.id;
    slaveKey = s.key;
    watcher = (await account('console watcher', `${process.pid}83`)).id;
    expect((await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, multiplier: 2 } })).status).to.equal(200);
    expect((await t.call('POST', `/accounts/${watcher}/copiers`, { body: { fromAccountId: master, monitorOnly: true } })).status).to.equal(200);
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
  });

  it('signs in with a key, lists the accounts and draws the copy network', async () => {
    const page = await context.newPage();
    await signIn(page, t.key);
    for (const alias of ['console master', 'console slave', 'console watcher']) await page.getByRole('link', { name: alias }).first().waitFor();
    const row = page.locator(`tr[data-account="${slave}"]`);
    expect(await row.textContent()).to.include('Active');
    const network = page.getByTestId('network');
    await network.waitFor();
    expect(await network.locator('g.edge').count()).to.equal(2);
    expect(await network.locator('g.edge[data-monitor-only="true"]').count()).to.equal(1);
    await shot(page, 'accounts');
    await page.close();
  });

  it("opens a master's page, opens a position from the console and the slave's copy appears", async () => {
    const page = await context.newPage();
    await signIn(page, t.key);
    await page.getByRole('link', { name: 'console master' }).first().click();
    await page.getByRole('heading', { name: 'console master' }).waitFor();
    await page.getByLabel('Symbol').fill('EURUSD');
    await page.getByLabel('Side').selectOption('Buy');
    await page.getByLabel('Volume (lots)').fill('0.01');
    await page.getByRole('button', { name: 'Open position' }).click();
    await page.getByText(/^Opened: position/).waitFor();
    await page.locator('table[aria-label="open positions"] tbody tr').first().waitFor();
    await shot(page, 'master');

    // The charting webhook's address, where the operator reads it to paste into the charting platform.
    const webhook = await t.call('POST', `/accounts/${master}/features`, { body: featureBody({ type: 'FeatureChartingWebhookDTO' }) });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(200);
    await page.reload();
    const address = page.locator('[data-webhook-address]');
    await address.waitFor({ timeout: 15_000 });
    expect(await address.textContent()).to.equal(`${base}${webhook.body.setting.webhookUrl as string}`);

    await bookWhere(t, slave, (book) => book.length === 1, 'the copy', 15_000);
    await page.goto(`${base}/console#/accounts/${slave}`);
    await page.getByRole('heading', { name: 'console slave' }).waitFor();
    const copy = page.locator('table[aria-label="open positions"] tbody tr');
    await copy.first().waitFor({ timeout: 15_000 });
    expect(await copy.first().textContent())
      .to.include('EURUSD')
      .and.include('0.02');
    await shot(page, 'slave');
    await page.close();
  });

  it('reads a skip reason in words in the logs', async () => {
    const page = await context.newPage();
    await signIn(page, t.key);
    await page.goto(`${base}/console#/accounts/${watcher}`);
    await page.getByRole('heading', { name: 'console watcher' }).waitFor();
    const skip = page.locator('table[aria-label="Account logs"] tr[data-log-code="MONITOR_ONLY"]');
    await skip.first().waitFor({ timeout: 15_000 });
    expect(await skip.first().textContent()).to.match(/monitor only, nothing placed; would have: /);
    await shot(page, 'logs');
    await page.close();
  });

  it('shows a restricted key only its account', async () => {
    const page = await context.newPage();
    await signIn(page, slaveKey);
    await page.getByRole('link', { name: 'console slave' }).first().waitFor();
    expect(await page.locator('tr[data-account]').count()).to.equal(1);
    expect(await page.getByRole('link', { name: 'console master' }).count()).to.equal(0);
    expect(await page.getByRole('link', { name: 'Read models' }).count()).to.equal(0);
    await shot(page, 'restricted');
    await page.close();
  });

  it('loads the API docs and lists /accounts', async () => {
    const page = await context.newPage();
    await page.goto(`${t.url}/docs`);
    // Tags start folded: open Accounts. Swagger UI renders each operation's path in .opblock-summary-path.
    await page.locator('.opblock-tag[data-tag="Accounts"]').click();
    const accounts = page.locator('.opblock-summary-path[data-path="/accounts"]');
    try {
      await accounts.first().waitFor({ state: 'attached' });
    } catch (error) {
      await shot(page, 'docs-failed');
      throw error;
    }
    const listed = await page.locator('.opblock-summary-path').evaluateAll((els) => els.map((el) => el.getAttribute('data-path')));
    expect(listed).to.include('/accounts');
    await shot(page, 'docs');
    await page.close();
  });
});
