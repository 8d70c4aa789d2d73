// The console in a real browser (issue 20): playwright-core driving Debian's Chromium against a started
// service. Sign in, the accounts and the copy network, a master's page, a position opened from the
// console and its copy on the slave, the timeline at an instant before the trade (and right after one
// event), modifying and closing the position, a skip reason in words, profit targets, a restricted key,
// the analyst's read models with a rebuild, the API docs. Screenshots go to test-results/console (ignored by git).
// Without a browser (no /usr/bin/chromium nor CHROMIUM_PATH) the specs are skipped, saying so.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
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
    // A reverse copier, drawn as such in the network; its account copies nothing the other steps read.
    const contrarian = (await account('console contrarian', `${process.pid}84`)).id;
    expect((await t.call('POST', `/accounts/${contrarian}/copiers`, { body: { fromAccountId: slave, reverse: true } })).status).to.equal(200);
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
    expect(await network.locator('g.edge').count()).to.equal(3);
    expect(await network.locator('g.edge[data-monitor-only="true"]').count()).to.equal(1);
    expect(await network.locator('g.edge[data-reverse="true"]').count()).to.equal(1);
    expect(await network.locator('desc').textContent()).to.include('console slave → console contrarian (reverse)');
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

  it("opens the master's timeline, moves to an instant before the trade and sees no position", async () => {
    const page = await context.newPage();
    await signIn(page, t.key);
    await page.goto(`${base}/console#/accounts/${master}/timeline`);
    await page.getByRole('heading', { name: 'Timeline', level: 1 }).waitFor();
    const opened = page.locator('tr[data-event-type="PositionOpened"]').first();
    await opened.waitFor();
    const summary = page.getByTestId('state-summary');
    // An instant typed: a millisecond before the fill the store recorded.
    const fill = Date.parse((await opened.getAttribute('data-time'))!);
    await page.getByLabel('Instant (ISO 8601, UTC)').fill(new Date(fill - 1).toISOString());
    await page.getByRole('button', { name: 'Show the account then' }).click();
    await page.getByText(/^At .*: status Active, .*, 0 open positions, /).waitFor();
    expect(await page.locator('table[aria-label="Positions at the instant"]').count()).to.equal(0);
    await page.getByText('No open positions.').waitFor();
    // Right after the trading request (by its position in the store: exact within a millisecond), then after the fill.
    await page
      .locator('tr[data-event-type="TradeRequested"]')
      .first()
      .getByRole('button', { name: /^Show the account after event/ })
      .click();
    await page.getByText(/^Right after event \d+, TradeRequested, .*: .*, 0 open positions, /).waitFor();
    await opened.getByRole('button', { name: /^Show the account after event/ }).click();
    await page.getByText(/^Right after event \d+, PositionOpened, .*: .*, 1 open position, /).waitFor();
    expect(await page.locator('table[aria-label="Positions at the instant"] tbody tr').first().textContent()).to.include('EURUSD');
    expect(await summary.count()).to.equal(1);
    await shot(page, 'timeline');
    await page.close();
  });

  it("modifies the master's position from the console, then closes it", async () => {
    const page = await context.newPage();
    await signIn(page, t.key);
    await page.goto(`${base}/console#/accounts/${master}`);
    await page.getByRole('heading', { name: 'console master' }).waitFor();
    const row = page.locator('table[aria-label="open positions"] tbody tr').first();
    await row.waitFor();
    await row.getByRole('button', { name: /^Modify position / }).click();
    await row.getByLabel('Stop loss').fill('1.05');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.locator('td', { hasText: /^1\.05$/ }).waitFor();
    await row.getByRole('button', { name: /^Close position / }).click();
    await page.getByText('No open positions.').waitFor();
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

  it("shows an account's profit targets with their state", async () => {
    const target = await t.call('POST', `/accounts/${slave}/features`, {
      body: featureBody({ type: 'FeatureDailyProfitTargetDTO', dailyProfitTarget: 0, dailyRelativeProfitTarget: 300 }),
    });
    expect(target.status, JSON.stringify(target.body)).to.equal(200);
    const page = await context.newPage();
    await signIn(page, t.key);
    await page.goto(`${base}/console#/accounts/${slave}`);
    await page.getByRole('heading', { name: 'console slave' }).waitFor();
    const row = page.locator(`table[aria-label="Profit targets"] tr[data-profit-target="${target.body.featureId as string}"]`);
    await row.waitFor();
    await row.getByText('open: copying').waitFor();
    expect(await row.textContent())
      .to.include('Daily profit target')
      .and.include('300.00 above it')
      .and.include('positions closed, copying stopped until the next period');
    expect(await row.getAttribute('data-hit')).to.equal('false');
    await page.close();
  });

  it('signs in and opens an account from the keyboard alone, and reads on a phone without sideways scrolling', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/console`);
    await page.getByLabel('API key').focus();
    await page.keyboard.type(t.key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'console slave' }).first().waitFor();
    // Strings: the specs are compiled without the DOM's types.
    const fitsTheWidth = () => page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth + 1');
    expect(await fitsTheWidth(), 'the accounts page is as wide as the phone').to.equal(true);
    // Tab through the page until the slave's link has the focus, then follow it with Enter.
    let focused = '';
    for (let i = 0; i < 60 && focused !== 'console slave'; i += 1) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate<string>("(document.activeElement?.textContent ?? '').trim()");
    }
    expect(focused, 'the slave is reachable with Tab').to.equal('console slave');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'console slave', level: 1 }).waitFor();
    expect(await fitsTheWidth(), "the account's page is as wide as the phone").to.equal(true);
    await shot(page, 'phone-account');
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

  it("shows the analyst each read model's checkpoint and lag, and rebuilds one blue-green with a granted key", async () => {
    const page = await context.newPage();
    // The project's key without an access policy sees the read models, and no button: a rebuild needs a grant.
    await signIn(page, t.key);
    await page.getByRole('link', { name: 'Read models' }).click();
    await page.getByRole('heading', { name: 'Read models', level: 1 }).waitFor();
    const copies = page.locator('tr[data-read-model="copies"]');
    await copies.waitFor();
    expect(await copies.locator('code').textContent()).to.match(/^\d+:\d+$/);
    await page.getByTestId('rebuild-needs-grant').waitFor();
    expect(await page.getByRole('button', { name: /^Rebuild / }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Sign out' }).click();

    const granted = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/apiKeys`, {
      body: {
        name: 'analyst',
        accessPolicy: {
          enabled: true,
          endpointAccess: {
            mode: 'ALLOW_LIST',
            rules: [
              { pathPattern: '/**', method: 'GET' },
              { pathPattern: '/readModels/*/rebuilds', method: 'POST' },
            ],
          },
        },
      },
    });
    expect(granted.status, JSON.stringify(granted.body)).to.equal(200);
    await signIn(page, granted.body.key as string);
    await page.goto(`${base}/console#/readModels`);
    await page.getByRole('button', { name: 'Rebuild copies' }).click();
    await page.getByText(/^Rebuild started: /).waitFor();
    await page.locator('tr[data-read-model="copies"][data-rebuild-state="SWITCHED"]').waitFor();
    expect(await copies.getByTestId('rebuild-progress').textContent()).to.match(/^rebuilt: generation \d+ serving since /);
    await shot(page, 'read-models');
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
