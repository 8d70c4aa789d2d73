/* global window, document, sessionStorage, fetch, location, URL, Blob */
// The web console (issue 20): a client of the public REST API and nothing else. Preact + htm as ES
// modules (index.html's import map), no build step. The API key lives in this tab's sessionStorage
// and travels as X-API-KEY; what the key may not see, the API does not answer, so neither does this.
import { h, render } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);
const KEY = 'copytrade.apiKey';
const API = '/rest/api/v1';

// ---------------------------------------------------------------------------------------------------
// The API

class ApiError extends Error {
  constructor(status, body) {
    const text = body && typeof body === 'object' && body.message ? `${body.error ? `${body.error} ` : ''}${body.message}` : `HTTP ${status}`;
    super(text);
    this.status = status;
    this.body = body;
  }
}

const call = async (method, path, body, key = sessionStorage.getItem(KEY)) => {
  const headers = { 'X-API-KEY': key ?? '' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return { data, headers: res.headers, status: res.status };
};
const get = async (path) => (await call('GET', path)).data;

/** Loads `load()` now and whenever `deps` change; `reload` loads again. */
const useLoad = (load, deps) => {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let alive = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => alive && setState({ data, error: null, loading: false }),
      (error) => alive && setState({ data: null, error, loading: false }),
    );
    return () => {
      alive = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: useCallback(() => setTick((t) => t + 1), []) };
};

// ---------------------------------------------------------------------------------------------------
// Small pieces

const money = (n) => (typeof n === 'number' ? n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }) : '–');
const when = (iso) =>
  iso
    ? new Date(iso)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')
    : '–';
/** To the millisecond: the timeline's events can be milliseconds apart. */
const whenExactly = (iso) => (iso ? new Date(iso).toISOString().replace('T', ' ') : '–');
const nameOf = (account) => account.alias || `${account.loginServer} ${account.loginAccountNumber}`;

const Problem = ({ error }) => (error ? html`<p class="error" role="alert">${error.message}</p>` : null);
const Loading = ({ what }) => html`<p class="muted" aria-live="polite">Loading ${what}…</p>`;

const Section = ({ title, id, children }) =>
  html`<section class="card" aria-labelledby=${id}>
    <h2 id=${id}>${title}</h2>
    ${children}
  </section>`;

// ---------------------------------------------------------------------------------------------------
// Sign in

const SignIn = ({ onSignedIn }) => {
  const [key, setKey] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = (await call('GET', '/apiKeys/current', undefined, key.trim())).data;
      sessionStorage.setItem(KEY, key.trim());
      onSignedIn(me);
    } catch (err) {
      setError(err.status === 401 ? new Error('This API key is not valid (unknown, expired or revoked).') : err);
    } finally {
      setBusy(false);
    }
  };
  return html`<main>
    <section class="card signin" aria-labelledby="signin-title">
      <h1 id="signin-title">Copy-trading console</h1>
      <p class="muted">Sign in with an API key. It is kept in this browser tab only (session storage) and sent as X-API-KEY.</p>
      <form onSubmit=${submit}>
        <label>API key <input type="password" name="apiKey" autocomplete="off" required value=${key} onInput=${(e) => setKey(e.target.value)} /></label>
        <p><button type="submit" disabled=${busy}>Sign in</button></p>
        <${Problem} error=${error} />
      </form>
    </section>
  </main>`;
};

// ---------------------------------------------------------------------------------------------------
// The copy network as a picture: masters on the left, their slaves to the right

const layout = (accounts) => {
  const edges = [];
  for (const a of accounts) for (const c of a.copiers ?? []) edges.push({ from: c.fromAccountId, to: a.id, copier: c });
  const ids = new Set(accounts.map((a) => a.id));
  const linked = new Set(edges.flatMap((e) => [e.from, e.to]).filter((id) => ids.has(id)));
  const column = new Map([...linked].map((id) => [id, 0]));
  for (let round = 0; round < linked.size; round++) {
    let moved = false;
    for (const e of edges) {
      if (!column.has(e.from) || !column.has(e.to) || e.from === e.to) continue;
      if (column.get(e.to) <= column.get(e.from) && column.get(e.from) < linked.size) {
        column.set(e.to, column.get(e.from) + 1);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const rows = new Map();
  const place = new Map();
  for (const a of accounts) {
    if (!column.has(a.id)) continue;
    const col = column.get(a.id);
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    place.set(a.id, { x: 10 + col * 230, y: 10 + row * 64, account: a });
  }
  return {
    edges: edges.filter((e) => place.has(e.from) && place.has(e.to)),
    place,
    width: 10 + Math.max(1, rows.size) * 230,
    height: 20 + Math.max(1, ...rows.values()) * 64,
  };
};

const edgeWords = (e, place) => {
  const kind = [e.copier.reverse ? 'reverse' : null, e.copier.monitorOnly ? 'monitor only' : null, e.copier.active === false ? 'inactive' : null].filter(
    Boolean,
  );
  return `${nameOf(place.get(e.from).account)} → ${nameOf(place.get(e.to).account)}${kind.length ? ` (${kind.join(', ')})` : ''}`;
};

const Network = ({ accounts }) => {
  const { edges, place, width, height } = useMemo(() => layout(accounts), [accounts]);
  if (edges.length === 0) return html`<p class="muted">No copiers yet: no account copies another.</p>`;
  const W = 180;
  const H = 40;
  return html`<div class="scroll">
      <svg class="network" viewBox=${`0 0 ${width} ${height}`} role="img" aria-labelledby="net-title net-desc" data-testid="network">
        <title id="net-title">Copy network: masters to slaves</title>
        <desc id="net-desc">${edges.map((e) => edgeWords(e, place)).join('; ')}</desc>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#444" />
          </marker>
        </defs>
        ${edges.map((e) => {
          const a = place.get(e.from);
          const b = place.get(e.to);
          const x1 = a.x + W;
          const y1 = a.y + H / 2;
          const x2 = b.x;
          const y2 = b.y + H / 2;
          const stroke = e.copier.reverse ? '#b3261e' : e.copier.monitorOnly ? '#888' : '#1f5fbf';
          const dash = e.copier.reverse ? '8 4' : e.copier.monitorOnly ? '2 4' : null;
          const label = [e.copier.reverse ? 'reverse' : null, e.copier.monitorOnly ? 'monitor only' : null].filter(Boolean).join(', ');
          return html`<g class="edge" data-reverse=${String(Boolean(e.copier.reverse))} data-monitor-only=${String(Boolean(e.copier.monitorOnly))}>
            <line
              x1=${x1}
              y1=${y1}
              x2=${x2}
              y2=${y2}
              stroke=${stroke}
              stroke-width="2"
              stroke-dasharray=${dash}
              opacity=${e.copier.active === false ? 0.4 : 1}
              marker-end="url(#arrow)"
            />
            ${label ? html`<text x=${(x1 + x2) / 2} y=${(y1 + y2) / 2 - 4} font-size="11" text-anchor="middle" fill=${stroke}>${label}</text>` : null}
          </g>`;
        })}
        ${[...place.values()].map(
          (p) =>
            html`<a href=${`#/accounts/${p.account.id}`}>
              <rect x=${p.x} y=${p.y} width=${W} height=${H} rx="6" fill="#fff" stroke="#16213a" />
              <text x=${p.x + 8} y=${p.y + 17} font-size="13">${nameOf(p.account).slice(0, 24)}</text>
              <text x=${p.x + 8} y=${p.y + 33} font-size="11" fill="#5b6475"
                >${p.account.status?.name ?? ''}${p.account.accountInformation?.connected ? ' · connected' : ''}</text
              >
            </a>`,
        )}
      </svg>
    </div>
    <p class="muted">
      Legend: <span style="color:#1f5fbf">solid: copies</span>, <span style="color:#b3261e">dashed red: reverse</span>,
      <span style="color:#888">dotted grey: monitor only</span>, faded: inactive.
    </p>
    <details>
      <summary>Copy links in words</summary>
      <ul>
        ${edges.map((e) => html`<li>${edgeWords(e, place)}</li>`)}
      </ul>
    </details>`;
};

// ---------------------------------------------------------------------------------------------------
// Accounts

const AccountsPage = () => {
  // configurationSummary: the accounts of GET /accounts with their copiers (the network's links).
  const accounts = useLoad(async () => {
    const list = await get('/accounts/configurationSummary?limit=1000');
    // Balance and equity are the venue's figures: GET .../information of each account (the first 100).
    const infos = await Promise.all(list.slice(0, 100).map((a) => get(`/accounts/${a.id}/information`).catch(() => null)));
    return list.map((a, i) => ({ ...a, accountInformation: { ...(a.accountInformation ?? {}), ...(infos[i] ?? {}) } }));
  }, []);
  if (accounts.loading && !accounts.data) return html`<main><${Loading} what="accounts" /></main>`;
  if (accounts.error) return html`<main><${Problem} error=${accounts.error} /></main>`;
  const list = accounts.data;
  return html`<main>
    <h1>Accounts</h1>
    <${Section} title="Accounts" id="accounts-title">
      <div class="scroll">
        <table aria-labelledby="accounts-title">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">Balance</th>
              <th scope="col" class="num">Equity</th>
              <th scope="col">Connection</th>
              <th scope="col" class="hide-narrow">Copies from</th>
            </tr>
          </thead>
          <tbody>
            ${list.map(
              (a) =>
                html`<tr data-account=${a.id}>
                  <td>
                    <a href=${`#/accounts/${a.id}`}>${nameOf(a)}</a>
                    <div class="muted hide-narrow">${a.id}</div>
                  </td>
                  <td>${a.status?.name}</td>
                  <td class="num">${money(a.accountInformation?.balance)} ${a.accountInformation?.currency ?? ''}</td>
                  <td class="num">${money(a.accountInformation?.equity)}</td>
                  <td>${a.accountInformation?.connected ? 'Connected' : 'Not connected'}</td>
                  <td class="hide-narrow">
                    ${(a.copiers ?? []).length ? (a.copiers ?? []).map((c) => c.fromAccountAlias || c.fromAccountId).join(', ') : '–'}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${list.length === 0 ? html`<p class="muted">No accounts yet.</p>` : null}
      <p><button class="secondary" type="button" onClick=${accounts.reload}>Refresh</button></p>
    <//>
    <${Section} title="Copy network" id="network-title"><${Network} accounts=${list} /><//>
  </main>`;
};

// ---------------------------------------------------------------------------------------------------
// One account

/** PositionRequestDTO.requestId as the reference counts it: 0 to 999, then again from 0 (kept per tab). */
const nextRequestId = () => {
  const next = (Number(sessionStorage.getItem('copytrade.requestId') ?? Math.floor(Math.random() * 1000)) + 1) % 1000;
  sessionStorage.setItem('copytrade.requestId', String(next));
  return next;
};

const TradeForm = ({ accountId, onDone }) => {
  const [form, setForm] = useState({ symbol: 'EURUSD', orderType: 'Buy', volume: '0.01', stopLoss: '', takeProfit: '' });
  const [result, setResult] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.value });
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setResult(null);
    try {
      const res = await call('POST', `/accounts/${accountId}/positions`, {
        symbol: form.symbol.trim(),
        orderType: form.orderType,
        volume: Number(form.volume),
        openPrice: 0,
        stopLoss: Number(form.stopLoss || 0),
        takeProfit: Number(form.takeProfit || 0),
        requestId: nextRequestId(),
      });
      setResult({ ok: `Opened: position ${res.headers.get('x-position-id') ?? ''}` });
      onDone();
    } catch (err) {
      setResult({ error: err });
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="inline" onSubmit=${submit} aria-label="Open a position">
    <label>Symbol <input name="symbol" value=${form.symbol} onInput=${set('symbol')} required size="8" /></label>
    <label
      >Side
      <select name="orderType" value=${form.orderType} onChange=${set('orderType')}>
        <option>Buy</option>
        <option>Sell</option>
      </select></label
    >
    <label>Volume (lots) <input name="volume" type="number" step="0.01" min="0.01" value=${form.volume} onInput=${set('volume')} required size="6" /></label>
    <label>Stop loss <input name="stopLoss" type="number" step="any" value=${form.stopLoss} onInput=${set('stopLoss')} size="8" /></label>
    <label>Take profit <input name="takeProfit" type="number" step="any" value=${form.takeProfit} onInput=${set('takeProfit')} size="8" /></label>
    <button type="submit" disabled=${busy}>Open position</button>
    <div aria-live="polite">${result?.ok ? html`<span class="ok">${result.ok}</span>` : null}<${Problem} error=${result?.error} /></div>
  </form>`;
};

const PositionRow = ({ accountId, p, onDone }) => {
  const [editing, setEditing] = useState(false);
  const [sl, setSl] = useState(String(p.stopLoss ?? 0));
  const [tp, setTp] = useState(String(p.takeProfit ?? 0));
  const [error, setError] = useState(null);
  const act = async (fn) => {
    setError(null);
    try {
      await fn();
      setEditing(false);
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  const close = () => act(() => call('DELETE', `/accounts/${accountId}/positions/${p.id}`));
  const modify = (e) => {
    e.preventDefault();
    void act(() =>
      call('PUT', `/accounts/${accountId}/positions/${p.id}`, {
        symbol: p.symbol,
        orderType: p.orderType,
        volume: p.volume,
        openPrice: 0,
        stopLoss: Number(sl || 0),
        takeProfit: Number(tp || 0),
        requestId: nextRequestId(),
      }),
    );
  };
  return html`<tr data-position=${p.id}>
    <td>${p.id}</td>
    <td>${p.symbol}</td>
    <td>${p.orderType}</td>
    <td class="num">${p.volume}</td>
    <td class="num">${p.openPrice}</td>
    <td class="num">${p.stopLoss || '–'}</td>
    <td class="num">${p.takeProfit || '–'}</td>
    <td class="num">${money(p.netProfit ?? p.profit)}</td>
    <td>
      ${
        editing
          ? html`<form class="inline" onSubmit=${modify} aria-label=${`Modify position ${p.id}`}>
              <label>Stop loss <input type="number" step="any" value=${sl} onInput=${(e) => setSl(e.target.value)} size="7" /></label>
              <label>Take profit <input type="number" step="any" value=${tp} onInput=${(e) => setTp(e.target.value)} size="7" /></label>
              <button type="submit">Save</button><button type="button" class="secondary" onClick=${() => setEditing(false)}>Cancel</button>
            </form>`
          : html`<div class="row">
              <button type="button" class="secondary" onClick=${() => setEditing(true)} aria-label=${`Modify position ${p.id}`}>Modify</button>
              <button type="button" onClick=${close} aria-label=${`Close position ${p.id}`}>Close</button>
            </div>`
      }
      <${Problem} error=${error} />
    </td>
  </tr>`;
};

const PositionsTable = ({ accountId, rows, onDone, label }) =>
  rows.length === 0
    ? html`<p class="muted">No ${label}.</p>`
    : html`<div class="scroll">
        <table aria-label=${label}>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Symbol</th>
              <th scope="col">Side</th>
              <th scope="col" class="num">Volume</th>
              <th scope="col" class="num">Open price</th>
              <th scope="col" class="num">SL</th>
              <th scope="col" class="num">TP</th>
              <th scope="col" class="num">Profit</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            ${rows.map((p) => html`<${PositionRow} key=${p.id} accountId=${accountId} p=${p} onDone=${onDone} />`)}
          </tbody>
        </table>
      </div>`;

const LOG_LEVELS = [
  { id: 3, name: 'Everything' },
  { id: 2, name: 'Errors and warnings' },
  { id: 1, name: 'Errors' },
];

const Logs = ({ accountId, refresh }) => {
  const [level, setLevel] = useState(3);
  const [category, setCategory] = useState('');
  const logs = useLoad(() => get(`/accounts/${accountId}/logs?limit=200&logTypeId=${level}`), [accountId, level, refresh]);
  const rows = (logs.data ?? []).filter((l) => !category || l.category === category);
  const categories = [...new Set((logs.data ?? []).map((l) => l.category))].sort();
  return html`<div class="row">
      <label
        >Level
        <select value=${level} onChange=${(e) => setLevel(Number(e.target.value))}>
          ${LOG_LEVELS.map((l) => html`<option value=${l.id}>${l.name}</option>`)}
        </select></label
      >
      <label
        >Category
        <select value=${category} onChange=${(e) => setCategory(e.target.value)}>
          <option value="">All</option>
          ${categories.map((c) => html`<option>${c}</option>`)}
        </select></label
      >
      <button type="button" class="secondary" onClick=${logs.reload}>Refresh logs</button>
    </div>
    <${Problem} error=${logs.error} />
    <div class="scroll">
      <table aria-label="Account logs">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Level</th>
            <th scope="col">Category</th>
            <th scope="col">What happened</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (l) =>
              html`<tr data-log-code=${l.code ?? ''}>
                <td>${when(l.date)}</td>
                <td><span class=${`badge ${l.logType}`}>${l.logType}</span></td>
                <td>${l.category}</td>
                <td>${l.text}${l.code ? html` <span class="muted">${l.code}</span>` : null}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${rows.length === 0 && !logs.loading ? html`<p class="muted">No log entries.</p>` : null}`;
};

const EquityChart = ({ accountId }) => {
  const [src, setSrc] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let url = null;
    fetch(`${API}/accounts/${accountId}/performanceMetrics/chart.svg`, { headers: { 'X-API-KEY': sessionStorage.getItem(KEY) ?? '' } })
      .then(async (res) => {
        if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
        url = URL.createObjectURL(new Blob([await res.text()], { type: 'image/svg+xml' }));
        setSrc(url);
      })
      .catch(setError);
    return () => url && URL.revokeObjectURL(url);
  }, [accountId]);
  if (error) return html`<p class="muted">No chart: ${error.message}</p>`;
  return src ? html`<div class="chart"><img src=${src} alt="Equity and drawdown chart of the account" /></div>` : html`<${Loading} what="the chart" />`;
};

const Copiers = ({ accountId, copiers }) => {
  const features = useLoad(
    () => Promise.all(copiers.map((c) => get(`/accounts/${accountId}/copiers/${c.id}/features`).catch(() => []))),
    [accountId, copiers.length],
  );
  if (copiers.length === 0) return html`<p class="muted">This account copies no master.</p>`;
  return html`<div class="scroll">
    <table aria-label="Copiers">
      <thead>
        <tr>
          <th scope="col">Copies from</th>
          <th scope="col">Mode</th>
          <th scope="col">Sizing</th>
          <th scope="col">Features</th>
        </tr>
      </thead>
      <tbody>
        ${copiers.map(
          (c, i) =>
            html`<tr>
              <td><a href=${`#/accounts/${c.fromAccountId}`}>${c.fromAccountAlias || c.fromAccountId}</a></td>
              <td>${c.active === false ? 'Inactive' : c.monitorOnly ? 'Monitor only' : 'Copying'}${c.reverse ? ', reverse' : ''}</td>
              <td>${c.scaleType?.name ?? ''} × ${c.multiplier}</td>
              <td>${(features.data?.[i] ?? []).map((f) => f.type?.name).join(', ') || '–'}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
};

const PROFIT_TARGETS = {
  FeatureDailyProfitTargetDTO: { words: 'Daily profit target', prefix: 'daily' },
  FeatureWeeklyProfitTargetDTO: { words: 'Weekly profit target', prefix: 'weekly' },
  FeatureMonthlyProfitTargetDTO: { words: 'Monthly profit target', prefix: 'monthly' },
  FeatureOverallTargetDTO: { words: 'Overall target', prefix: null },
};

/** A target's thresholds in words: only those set (0 is off). */
const targetWords = (f) => {
  const s = f.setting ?? {};
  const { prefix } = PROFIT_TARGETS[f.type?.name] ?? {};
  if (!prefix) {
    const parts = Object.entries(s)
      .filter(([k, v]) => typeof v === 'number' && v !== 0 && /target|limit|balance/i.test(k))
      .map(([k, v]) => `${k} ${v}`);
    return parts.join(', ') || 'no threshold set';
  }
  const parts = [
    s[`${prefix}ProfitTarget`] ? `${s[`${prefix}ProfitTarget`]} % of the balance at the period start` : null,
    s[`${prefix}RelativeProfitTarget`] ? `${money(s[`${prefix}RelativeProfitTarget`])} above it` : null,
    s[`${prefix}AbsoluteProfitTarget`] ? `equity ${money(s[`${prefix}AbsoluteProfitTarget`])}` : null,
  ].filter(Boolean);
  return `${parts.join(' or ') || 'no threshold set'}; when reached: ${s.pauseInsteadOfClose ? 'copying paused, positions kept' : 'positions closed, copying stopped'} until the next period`;
};

/** The account's profit target features with their state now (account information's profitTargetsStatus and profitTargetsLocked). */
const ProfitTargets = ({ accountId, features, info, onDone }) => {
  const [message, setMessage] = useState(null);
  const targets = features.filter((f) => PROFIT_TARGETS[f.type?.name]);
  if (targets.length === 0) return html`<p class="muted">No profit targets.</p>`;
  const statusOf = new Map((info.profitTargetsStatus ?? []).map((st) => [st.profitTargetFeatureId, st]));
  const locksOf = (id) => (info.profitTargetsLocked ?? []).filter((l) => l.profitTargetFeatureId === id);
  const reset = async (f) => {
    setMessage(null);
    try {
      await call('PUT', `/accounts/${accountId}/profitTargets/${f.featureId}/reset`);
      setMessage({ ok: `${PROFIT_TARGETS[f.type.name].words} reset: copying resumes` });
      onDone();
    } catch (err) {
      setMessage({ error: err });
    }
  };
  return html`<div class="scroll">
      <table aria-label="Profit targets">
        <thead>
          <tr>
            <th scope="col">Target</th>
            <th scope="col">Thresholds</th>
            <th scope="col">State now</th>
            <th scope="col" class="num">Reference balance</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${targets.map((f) => {
            const st = statusOf.get(f.featureId);
            const locks = locksOf(f.featureId);
            const hit = st?.profitTargetIsHit === true || locks.length > 0;
            const state =
              !st && locks.length === 0
                ? 'unknown (no broker figures yet)'
                : hit
                  ? `reached: locked${locks[0] ? ` since ${whenExactly(locks[0].lockedAt)}${locks[0].until ? ` until ${whenExactly(locks[0].until)}` : ''}, at ${money(locks[0].measured)}` : ''}`
                  : 'open: copying';
            return html`<tr data-profit-target=${f.featureId} data-hit=${String(hit)}>
              <td>${PROFIT_TARGETS[f.type.name].words}</td>
              <td>${targetWords(f)}</td>
              <td>${state}</td>
              <td class="num">${money(st?.referenceBalance)}</td>
              <td>
                ${hit ? html`<button type="button" class="secondary" onClick=${() => reset(f)} aria-label=${`Reset ${PROFIT_TARGETS[f.type.name].words}`}>Reset</button>` : '–'}
              </td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    <div aria-live="polite">${message?.ok ? html`<span class="ok">${message.ok}</span>` : null}<${Problem} error=${message?.error} /></div>`;
};

const AccountPage = ({ id }) => {
  const [refresh, setRefresh] = useState(0);
  const bump = () => setRefresh((n) => n + 1);
  const account = useLoad(async () => {
    const [a, info] = await Promise.all([get(`/accounts/${id}`), get(`/accounts/${id}/information`).catch(() => null)]);
    const copiers = await get(`/accounts/${id}/copiers`).catch(() => []);
    return { ...a, copiers, accountInformation: { ...(a.accountInformation ?? {}), ...(info ?? {}) } };
  }, [id, refresh]);
  const book = useLoad(() => get(`/accounts/${id}/positions`), [id, refresh]);
  const start = new Date(Date.now() - 400 * 86_400_000).toISOString();
  const stop = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const history = useLoad(() => get(`/accounts/${id}/history/positions?start=${start}&stop=${stop}`), [id, refresh]);
  const features = useLoad(() => get(`/accounts/${id}/features`), [id, refresh]);
  const limits = useLoad(() => get(`/accounts/${id}/riskLimits`), [id, refresh]);
  useEffect(() => {
    const timer = window.setInterval(bump, 5000);
    return () => window.clearInterval(timer);
  }, [id]);
  if (account.error) return html`<main><${Problem} error=${account.error} /></main>`;
  if (!account.data) return html`<main><${Loading} what="the account" /></main>`;
  const a = account.data;
  const info = a.accountInformation ?? {};
  const open = (book.data ?? []).filter((p) => p.state !== 'Pending');
  const pending = (book.data ?? []).filter((p) => p.state === 'Pending');
  return html`<main>
    <p><a href="#/accounts">← Accounts</a></p>
    <h1>${nameOf(a)}</h1>
    <p class="row">
      <span>Status: <strong>${a.status?.name}</strong></span>
      <span>Connection: <strong>${info.connected ? 'Connected' : 'Not connected'}</strong></span>
      <span>Balance: <strong>${money(info.balance)} ${info.currency ?? ''}</strong></span>
      <span>Equity: <strong>${money(info.equity)}</strong></span>
      <a href=${`#/accounts/${id}/timeline`}>Timeline</a>
      <button type="button" class="secondary" onClick=${bump}>Refresh</button>
    </p>
    <${Section} title="Trade" id="trade-title"><${TradeForm} accountId=${id} onDone=${bump} /><//>
    <${Section} title="Open positions" id="positions-title">
      <${Problem} error=${book.error} />
      <${PositionsTable} accountId=${id} rows=${open} onDone=${bump} label="open positions" />
    <//>
    <${Section} title="Pending orders" id="orders-title"><${PositionsTable} accountId=${id} rows=${pending} onDone=${bump} label="pending orders" /><//>
    <${Section} title="History" id="history-title">
      <${Problem} error=${history.error} />
      ${
        (history.data ?? []).length === 0
          ? html`<p class="muted">No closed positions.</p>`
          : html`<div class="scroll">
              <table aria-label="Closed positions">
                <thead>
                  <tr>
                    <th scope="col">Id</th>
                    <th scope="col">Symbol</th>
                    <th scope="col">Side</th>
                    <th scope="col" class="num">Volume</th>
                    <th scope="col">Closed</th>
                    <th scope="col" class="num">Profit</th>
                  </tr>
                </thead>
                <tbody>
                  ${history.data.map(
                    (p) =>
                      html`<tr>
                        <td>${p.id}</td>
                        <td>${p.symbol}</td>
                        <td>${p.orderType}</td>
                        <td class="num">${p.volume}</td>
                        <td>${when(p.closeTime)}</td>
                        <td class="num">${money(p.netProfit ?? p.profit)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    <//>
    <${Section} title="Copiers and their features" id="copiers-title"><${Copiers} accountId=${id} copiers=${a.copiers ?? []} /><//>
    <${Section} title="Account features" id="features-title">
      <${Problem} error=${features.error} />
      ${
        (features.data ?? []).length === 0
          ? html`<p class="muted">No account features.</p>`
          : html`<ul>
              ${features.data.map(
                (f) =>
                  html`<li>
                    ${f.type?.name}
                    ${f.setting?.webhookUrl ? html` — alerts to <code data-webhook-address>${location.origin}${f.setting.webhookUrl}</code>` : null}
                  </li>`,
              )}
            </ul>`
      }
    <//>
    <${Section} title="Risk limits" id="limits-title">
      <${Problem} error=${limits.error} />
      ${
        (limits.data ?? []).length === 0
          ? html`<p class="muted">No risk limits.</p>`
          : html`<ul>
              ${limits.data.map(
                (l) =>
                  html`<li>
                    ${`${l.riskType?.name}: ${l.absoluteRiskLimit || l.riskLimit || l.relativeRiskLimit}${l.active === false ? ' (inactive)' : ''}${l.status ? ` — ${l.status.name ?? l.status}` : ''}`}
                  </li>`,
              )}
            </ul>`
      }
    <//>
    <${Section} title="Profit targets" id="targets-title">
      <${Problem} error=${features.error} />
      <${ProfitTargets} accountId=${id} features=${features.data ?? []} info=${info} onDone=${bump} />
    <//>
    <${Section} title="Equity chart" id="chart-title"><${EquityChart} accountId=${id} /><//>
    <${Section} title="Logs" id="logs-title"><${Logs} accountId=${id} refresh=${refresh} /><//>
  </main>`;
};

// ---------------------------------------------------------------------------------------------------
// The auditor's timeline

const StateAt = ({ state }) => {
  const a = state.account;
  if (!a.exists) return html`<p data-testid="state-summary">${`The account did not exist yet at ${whenExactly(state.instant)}.`}</p>`;
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  // One string: htm drops the whitespace of a line break next to an element or a value ("balance10.00").
  const summary = [
    `status ${a.status?.name ?? '–'}`,
    `balance ${money(a.balance)}`,
    a.connected ? 'connected' : 'not connected',
    plural(a.positions.length, 'open position'),
    plural(a.pendingOrders.length, 'pending order'),
    plural(a.copiers.length, 'copier'),
  ].join(', ');
  return html`<div data-testid="state">
    <p data-testid="state-summary">${`${state.label} (${plural(state.eventsReplayed, 'event')} replayed): ${summary}.`}</p>
    ${
      a.positions.length === 0
        ? html`<p>No open positions.</p>`
        : html`<div class="scroll">
            <table aria-label="Positions at the instant">
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Symbol</th>
                  <th scope="col">Side</th>
                  <th scope="col" class="num">Volume</th>
                  <th scope="col" class="num">Open price</th>
                </tr>
              </thead>
              <tbody>
                ${a.positions.map(
                  (p) =>
                    html`<tr>
                      <td>${p.positionId}</td>
                      <td>${p.symbol}</td>
                      <td>${p.orderType}</td>
                      <td class="num">${p.volume}</td>
                      <td class="num">${p.openPrice}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${a.copiers.length ? html`<p>Copiers: ${a.copiers.map((c) => `from ${c.fromAccountId} × ${c.settings.multiplier}${c.settings.reverse ? ' reverse' : ''}${c.settings.monitorOnly ? ' monitor only' : ''}`).join('; ')}</p>` : null}
    <details>
      <summary>Settings then</summary>
      <pre>${JSON.stringify(a.settings, null, 2)}</pre>
    </details>
  </div>`;
};

const causeWords = (c) =>
  c.kind === 'API_KEY'
    ? `API key ${c.apiKeyId?.slice(0, 8) ?? ''}… ${c.method ?? ''} ${c.path ?? ''}${c.clientIp ? ` from ${c.clientIp}` : ''}`
    : { ENGINE: 'copy engine', VENUE: 'venue', PROTECTION: 'protection', SCHEDULE: 'schedule', SYSTEM: 'the service' }[c.kind];

const TimelinePage = ({ id }) => {
  const timeline = useLoad(() => get(`/accounts/${id}/timeline?limit=5000`), [id]);
  const [instant, setInstant] = useState('');
  const [state, setState] = useState(null);
  const [error, setError] = useState(null);
  /** `at`: an instant typed or picked; `entry`: right after that event (by its position, exact). */
  const show = async (at, entry = null) => {
    setError(null);
    try {
      if (entry) {
        setInstant(entry.time);
        const then = await get(`/accounts/${id}/stateAt?position=${encodeURIComponent(entry.position)}`);
        setState({ ...then, label: `Right after event ${entry.index}, ${entry.type}, at ${whenExactly(entry.time)}` });
        return;
      }
      // As the list shows them ("2026-01-07 10:00:00.000Z"); without an offset, UTC (the label says so).
      const text = at.trim().replace(' ', 'T');
      const date = new Date(/(Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`);
      if (Number.isNaN(date.getTime())) throw new Error(`Not an instant: ${at}`);
      const iso = date.toISOString();
      setInstant(iso);
      const then = await get(`/accounts/${id}/stateAt?instant=${encodeURIComponent(iso)}`);
      setState({ ...then, label: `At ${whenExactly(iso)}` });
    } catch (err) {
      setError(err);
    }
  };
  const entries = timeline.data?.entries ?? [];
  return html`<main>
    <p><a href=${`#/accounts/${id}`}>← Account</a></p>
    <h1>Timeline</h1>
    <${Section} title="The account at an instant" id="instant-title">
      <form class="inline" onSubmit=${(e) => (e.preventDefault(), void show(instant))}>
        <label
          >Instant (ISO 8601, UTC)
          <input name="instant" value=${instant} onInput=${(e) => setInstant(e.target.value)} placeholder="2026-01-07T10:00:00.000Z" required size="26"
        /></label>
        <button type="submit">Show the account then</button>
      </form>
      <${Problem} error=${error} />
      ${state ? html`<${StateAt} state=${state} />` : html`<p class="muted">Pick an instant, or a moment in the list below.</p>`}
    <//>
    <${Section} title="Events" id="events-title">
      <${Problem} error=${timeline.error} />
      ${timeline.loading && !timeline.data ? html`<${Loading} what="the timeline" />` : null}
      <div class="scroll">
        <table aria-label="Events of the account">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Recorded</th>
              <th scope="col">Event</th>
              <th scope="col">Caused by</th>
              <th scope="col">After it</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            ${entries.map(
              (e, i) =>
                html`<tr data-event-type=${e.type} data-time=${e.time}>
                  <td>${i + 1}</td>
                  <td>${whenExactly(e.time)}</td>
                  <td>
                    ${e.type}
                    <div class="muted">${e.stream.split('-')[0]}</div>
                  </td>
                  <td>${causeWords(e.cause)}</td>
                  <td>${e.after.status ?? '–'}, ${e.after.openPositions} open, balance ${money(e.after.balance)}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      onClick=${() => show(null, { ...e, index: i + 1 })}
                      aria-label=${`Show the account after event ${i + 1}, ${e.type}`}
                    >
                      Show
                    </button>
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    <//>
  </main>`;
};

// ---------------------------------------------------------------------------------------------------
// The analyst's view: every read model's checkpoint and lag, rebuilds and their progress

/** A key may start a rebuild only with an explicit grant (the API decides; this only hides a button it would refuse). */
const mayRebuild = (me) => me.level === 'PROJECT' && me.accessPolicy?.enabled === true && me.accessPolicy.endpointAccess?.mode === 'ALLOW_LIST';

const rebuildWords = (r) =>
  !r
    ? 'never rebuilt here'
    : r.state === 'RUNNING'
      ? `rebuilding: ${r.percent}% (${r.processed.toLocaleString('en-US')} of ${r.total.toLocaleString('en-US')} events), ${{ HISTORY: 'reading the history', FINISHING: 'finishing the new tables', SWITCHING: 'catching up and switching' }[r.phase] ?? 'starting'}`
      : r.state === 'SWITCHED'
        ? `rebuilt: generation ${r.generation} serving since ${whenExactly(r.finishedAt)}`
        : `rebuild failed: ${r.error}`;

const ReadModelsPage = ({ me }) => {
  const models = useLoad(() => get('/readModels'), []);
  const [messages, setMessages] = useState({});
  const running = (models.data ?? []).some((m) => m.lastRebuild?.state === 'RUNNING');
  useEffect(() => {
    if (!running) return undefined;
    const timer = window.setInterval(models.reload, 1000);
    return () => window.clearInterval(timer);
  }, [running]);
  const rebuild = async (name) => {
    setMessages((m) => ({ ...m, [name]: null }));
    try {
      const r = (await call('POST', `/readModels/${encodeURIComponent(name)}/rebuilds`)).data;
      setMessages((m) => ({ ...m, [name]: { ok: `Rebuild started: ${r.id}` } }));
    } catch (err) {
      setMessages((m) => ({ ...m, [name]: { error: err } }));
    }
    models.reload();
  };
  const allowed = mayRebuild(me);
  return html`<main>
    <h1>Read models</h1>
    <${Section} title="Checkpoints, lag and rebuilds" id="read-models-title">
      <p class="muted">
        Every read model is shared by all projects: this shows where each one is, never another project's data. A rebuild builds a new generation beside the
        serving one and switches when it has caught up.
      </p>
      ${
        allowed
          ? null
          : html`<p class="muted" data-testid="rebuild-needs-grant">
              ${'Starting a rebuild needs a project-level key whose access policy allows POST /readModels/{readModel}/rebuilds in an ALLOW_LIST.'}
            </p>`
      }
      <${Problem} error=${models.error} />
      ${models.loading && !models.data ? html`<${Loading} what="the read models" />` : null}
      <div class="scroll">
        <table aria-labelledby="read-models-title">
          <thead>
            <tr>
              <th scope="col">Read model</th>
              <th scope="col" class="num">Version</th>
              <th scope="col" class="num">Generation</th>
              <th scope="col" class="hide-narrow">Checkpoint</th>
              <th scope="col" class="num">Lag (s)</th>
              <th scope="col" class="num">Lag (events)</th>
              <th scope="col">Rebuild</th>
            </tr>
          </thead>
          <tbody>
            ${(models.data ?? []).map(
              (m) =>
                html`<tr data-read-model=${m.name} data-rebuild-state=${m.lastRebuild?.state ?? ''}>
                  <th scope="row">${m.name}</th>
                  <td class="num">${m.version}</td>
                  <td class="num">${m.generation ?? '–'}${m.buildingGeneration ? ` (building ${m.buildingGeneration})` : ''}</td>
                  <td class="hide-narrow"><code>${m.checkpoint ?? '–'}</code></td>
                  <td class="num">${m.lagSeconds === null ? '–' : m.lagSeconds.toFixed(1)}</td>
                  <td class="num">${m.lagEvents ?? '–'}</td>
                  <td>
                    <div data-testid="rebuild-progress">${rebuildWords(m.lastRebuild)}</div>
                    ${
                      m.lastRebuild?.state === 'RUNNING'
                        ? html`<progress max="100" value=${m.lastRebuild.percent} aria-label=${`Rebuild of ${m.name}`}>${m.lastRebuild.percent}%</progress>`
                        : null
                    }
                    ${
                      allowed
                        ? html`<button
                            type="button"
                            class="secondary"
                            disabled=${m.lastRebuild?.state === 'RUNNING'}
                            onClick=${() => rebuild(m.name)}
                            aria-label=${`Rebuild ${m.name}`}
                          >
                            Rebuild
                          </button>`
                        : null
                    }
                    <div aria-live="polite">
                      ${messages[m.name]?.ok ? html`<span class="ok">${messages[m.name].ok}</span>` : null}<${Problem} error=${messages[m.name]?.error} />
                    </div>
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <p><button class="secondary" type="button" onClick=${models.reload}>Refresh</button></p>
    <//>
  </main>`;
};

// ---------------------------------------------------------------------------------------------------
// The shell: sign-in state, navigation by the location's hash

const parseRoute = (hash) => {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  if (parts[0] === 'readModels') return { page: 'readModels' };
  if (parts[0] === 'accounts' && parts[1] && parts[2] === 'timeline') return { page: 'timeline', id: parts[1] };
  if (parts[0] === 'accounts' && parts[1]) return { page: 'account', id: parts[1] };
  return { page: 'accounts' };
};

const App = () => {
  const [me, setMe] = useState(null);
  const [checking, setChecking] = useState(Boolean(sessionStorage.getItem(KEY)));
  const [route, setRoute] = useState(parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    if (!sessionStorage.getItem(KEY)) return;
    get('/apiKeys/current').then(
      (data) => (setMe(data), setChecking(false)),
      () => (sessionStorage.removeItem(KEY), setChecking(false)),
    );
  }, []);
  useEffect(() => {
    document.title = `${{ accounts: 'Accounts', account: 'Account', timeline: 'Timeline', readModels: 'Read models' }[route.page]} · Copy-trading console`;
  }, [route.page]);
  if (checking) return html`<main><${Loading} what="your session" /></main>`;
  if (!me) return html`<${SignIn} onSignedIn=${setMe} />`;
  const signOut = () => {
    sessionStorage.removeItem(KEY);
    setMe(null);
  };
  const page =
    route.page === 'account'
      ? html`<${AccountPage} id=${route.id} />`
      : route.page === 'timeline'
        ? html`<${TimelinePage} id=${route.id} />`
        : route.page === 'readModels' && me.level === 'PROJECT'
          ? html`<${ReadModelsPage} me=${me} />`
          : html`<${AccountsPage} />`;
  return html`<div>
    <header class="top">
      <strong>Copy-trading console</strong>
      <nav aria-label="Main">
        <a href="#/accounts">Accounts</a>
        ${me.level === 'PROJECT' ? html`<a href="#/readModels">Read models</a>` : null}
        <a href="/rest/api/v1/docs" target="_blank" rel="noopener">API docs</a>
      </nav>
      <span class="who">${me.name ?? 'API key'} (${me.level === 'PROJECT' ? 'project' : 'account'} key)</span>
      <button type="button" class="link" onClick=${signOut}>Sign out</button>
    </header>
    ${page}
  </div>`;
};

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
