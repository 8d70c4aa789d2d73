// The equity and drawdown picture (GET .../performanceMetrics/chart.svg): a self-contained SVG a person
// can open in a browser. Top panel: equity (and balance) over time; bottom panel: the drawdown from the
// running peak, in percent. Drawn from the data-collector samples when there are at least two, else
// from the balance after each closed trade and balance operation.
import type { MetricsInput, PerformanceMetrics } from '../../domain/analytics/metrics.js';

export interface CurvePoint {
  readonly time: number;
  readonly equity: number;
  readonly balance: number;
}

/**
 * The curve to draw: the data-collector samples when there are at least two, else the balance after
 * each closed trade and balance operation of the range, from the balance at its start.
 */
export const equityCurve = (input: MetricsInput): CurvePoint[] => {
  if (input.samples.length >= 2) return input.samples.map((s) => ({ time: Date.parse(s.time), equity: s.equity, balance: s.balance }));
  // The balance curve: everything before the range sums into its starting level.
  const events = [
    ...input.trades.map((t) => ({ time: Date.parse(t.closeTime), amount: t.profit + t.swap + t.commission })),
    ...input.balanceOperations.map((b) => ({ time: Date.parse(b.time), amount: b.amount })),
  ].sort((a, b) => a.time - b.time);
  const fromMs = input.from ? Date.parse(input.from) : Number.NEGATIVE_INFINITY;
  let level = events.filter((e) => e.time < fromMs).reduce((s, e) => s + e.amount, 0);
  return events
    .filter((e) => e.time >= fromMs)
    .map((e) => {
      level += e.amount;
      return { time: e.time, equity: Math.round(level * 100) / 100, balance: Math.round(level * 100) / 100 };
    });
};

/** The line under the title: the headline metrics and where the curve comes from. */
export const chartSubtitle = (input: MetricsInput, metrics: PerformanceMetrics): string =>
  `${metrics.totalTrades} trades, net ${metrics.netProfit.toFixed(2)}, max drawdown ${metrics.maxDrawdown.toFixed(2)} %, score ${metrics.score}` +
  (input.samples.length >= 2 ? ' (equity from the data collector)' : ' (balance after each close)');

const WIDTH = 960;
const HEIGHT = 560;
const LEFT = 78;
const RIGHT = 28;
const TOP_PANEL = { top: 64, height: 300 };
const BOTTOM_PANEL = { top: 404, height: 110 };

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const niceStep = (span: number, ticks: number): number => {
  const raw = span / Math.max(1, ticks);
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  const n = raw / power;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * power;
};

const formatMoney = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: Math.abs(x) < 100 ? 2 : 0 });
const formatDate = (ms: number, spanMs: number): string => {
  const iso = new Date(ms).toISOString();
  return spanMs < 2 * 86_400_000 ? iso.slice(11, 16) : iso.slice(0, 10);
};

/** Drawdown from the running peak of equity, in percent (0 or more). */
export const drawdownSeries = (points: readonly CurvePoint[]): number[] => {
  let peak = Number.NEGATIVE_INFINITY;
  return points.map((p) => {
    peak = Math.max(peak, p.equity);
    return peak > 0 ? ((peak - p.equity) / peak) * 100 : 0;
  });
};

export const equityChartSvg = (title: string, subtitle: string, points: readonly CurvePoint[]): string => {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif">`,
    '<defs><linearGradient id="eq" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2563eb" stop-opacity="0.28"/><stop offset="1" stop-color="#2563eb" stop-opacity="0.02"/></linearGradient>',
    '<linearGradient id="dd" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#dc2626" stop-opacity="0.08"/><stop offset="1" stop-color="#dc2626" stop-opacity="0.45"/></linearGradient></defs>',
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="30" font-size="19" font-weight="600" fill="#0f172a">${escape(title)}</text>`,
    `<text x="${LEFT}" y="50" font-size="12.5" fill="#64748b">${escape(subtitle)}</text>`,
  );
  if (points.length < 2) {
    parts.push(
      `<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" font-size="15" fill="#64748b">Not enough history to draw yet: close a trade or switch the data collector on.</text></svg>`,
    );
    return parts.join('');
  }
  const t0 = points[0]!.time;
  const t1 = Math.max(points[points.length - 1]!.time, t0 + 1);
  const x = (t: number) => LEFT + ((t - t0) / (t1 - t0)) * plotWidth;
  const values = points.flatMap((p) => [p.equity, p.balance]);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi === lo) {
    hi += 1;
    lo -= 1;
  }
  const pad = (hi - lo) * 0.08;
  lo -= pad;
  hi += pad;
  const y = (v: number) => TOP_PANEL.top + (1 - (v - lo) / (hi - lo)) * TOP_PANEL.height;

  // Grid and value axis.
  const step = niceStep(hi - lo, 5);
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    parts.push(`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e2e8f0"/>`);
    parts.push(`<text x="${LEFT - 10}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#64748b">${formatMoney(v)}</text>`);
  }
  const path = (accessor: (p: CurvePoint) => number) => points.map((p, i) => `${i ? 'L' : 'M'}${x(p.time).toFixed(1)},${y(accessor(p)).toFixed(1)}`).join(' ');
  const equityPath = path((p) => p.equity);
  const bottom = TOP_PANEL.top + TOP_PANEL.height;
  parts.push(`<path d="${equityPath} L${x(t1).toFixed(1)},${bottom} L${x(t0).toFixed(1)},${bottom} Z" fill="url(#eq)"/>`);
  parts.push(`<path d="${path((p) => p.balance)}" fill="none" stroke="#94a3b8" stroke-width="1.5" stroke-dasharray="5 4"/>`);
  parts.push(`<path d="${equityPath}" fill="none" stroke="#2563eb" stroke-width="2.2" stroke-linejoin="round"/>`);

  // Drawdown panel.
  const dd = drawdownSeries(points);
  const ddMax = Math.max(1, ...dd) * 1.1;
  const yd = (v: number) => BOTTOM_PANEL.top + (v / ddMax) * BOTTOM_PANEL.height;
  parts.push(`<text x="${LEFT}" y="${BOTTOM_PANEL.top - 10}" font-size="12" font-weight="600" fill="#334155">Drawdown from peak</text>`);
  parts.push(`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${BOTTOM_PANEL.top}" y2="${BOTTOM_PANEL.top}" stroke="#cbd5e1"/>`);
  const ddPath = points.map((p, i) => `L${x(p.time).toFixed(1)},${yd(dd[i]!).toFixed(1)}`).join(' ');
  parts.push(
    `<path d="M${x(t0).toFixed(1)},${BOTTOM_PANEL.top} ${ddPath} L${x(t1).toFixed(1)},${BOTTOM_PANEL.top} Z" fill="url(#dd)" stroke="#dc2626" stroke-width="1.4"/>`,
  );
  const worst = Math.max(...dd);
  parts.push(`<text x="${LEFT - 10}" y="${(BOTTOM_PANEL.top + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#64748b">0 %</text>`);
  parts.push(`<text x="${LEFT - 10}" y="${(yd(worst) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#dc2626">-${worst.toFixed(1)} %</text>`);

  // Time axis.
  const span = t1 - t0;
  for (let i = 0; i <= 5; i++) {
    const t = t0 + (span * i) / 5;
    parts.push(
      `<text x="${x(t).toFixed(1)}" y="${BOTTOM_PANEL.top + BOTTOM_PANEL.height + 22}" text-anchor="middle" font-size="11" fill="#64748b">${formatDate(t, span)}</text>`,
    );
  }

  // Legend and the last values.
  const last = points[points.length - 1]!;
  parts.push(
    `<g font-size="12" fill="#334155"><line x1="${WIDTH - 330}" x2="${WIDTH - 306}" y1="30" y2="30" stroke="#2563eb" stroke-width="2.5"/><text x="${WIDTH - 300}" y="34">Equity ${formatMoney(last.equity)}</text>`,
    `<line x1="${WIDTH - 190}" x2="${WIDTH - 166}" y1="30" y2="30" stroke="#94a3b8" stroke-width="1.5" stroke-dasharray="5 4"/><text x="${WIDTH - 160}" y="34">Balance ${formatMoney(last.balance)}</text></g>`,
    '</svg>',
  );
  return parts.join('');
};
