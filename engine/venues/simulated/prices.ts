// Seeded price paths for the simulated dealer (../shared/research/venues.md §5.5).
//
// A path moves on a grid of one-second steps from an origin time. The randomness of step k comes
// from a PRNG seeded by hash(seed, symbol, k), so the price at a time depends only on (seed, origin,
// symbol, time), never on how often or in which order it was asked for. Each step's log return is
// a Student-t draw (fat tails) scaled by the symbol's volatility, an intraday rhythm by UTC hour, and
// a stochastic volatility that clusters (an AR(1) log-volatility updated each minute), plus rare
// jumps. While the market is closed the path keeps moving slowly but the quote stays frozen at the
// last open second, so the reopening gaps. Tests pin a quote to drive the dealer by hand.
import { hourOf, isMarketOpen, ROLLOVER_HOUR_UTC, type SimulatedSymbol } from './symbols.js';

export const STEP_MS = 1000;
const STEPS_PER_MINUTE = 60;
const CHECKPOINT_STEPS = 3600;
const TRADING_DAYS_PER_YEAR = { forex: 260, crypto: 365 } as const;

/** Degrees of freedom of the increments: excess kurtosis 6 / (ν - 4) = 6. */
const T_DEGREES = 5;
/** Standard deviation of the log-volatility; its multiplier exp(h - σ²) keeps E[m²] = 1. */
const VOL_OF_VOL = 0.45;
/** Per minute: a volatility shock halves in two hours. */
const VOL_PERSISTENCE = 2 ** (-1 / 120);
const JUMPS_PER_DAY = 3;
/** Jump standard deviation as a fraction of the annual volatility (EURUSD: about 10 pips). */
const JUMP_SIZE = 0.012;
/** Relative volatility of the hidden path while the market is closed (the weekend gap). */
const CLOSED_VOLATILITY = 0.25;
const SPREAD_VOL_SENSITIVITY = 0.6;
const ROLLOVER_SPREAD_FACTOR = 3;
const ROLLOVER_SPREAD_MINUTES = 30;

/**
 * Relative volatility by UTC hour. Forex from the USDCHF measurement of venues.md §5.5 (quiet at
 * 03-04h, busiest in the London/New York overlap 13-16h); crypto flatter. Scaled to RMS 1.
 */
const normalised = (curve: readonly number[]): readonly number[] => {
  const rms = Math.sqrt(curve.reduce((sum, x) => sum + x * x, 0) / curve.length);
  return curve.map((x) => x / rms);
};
const RHYTHM = {
  forex: normalised([0.75, 0.65, 0.6, 0.5, 0.5, 0.6, 0.75, 0.95, 1.2, 1.25, 1.15, 1.05, 1.15, 1.4, 1.6, 1.55, 1.35, 1.05, 0.85, 0.75, 0.7, 0.65, 0.55, 0.7]),
  crypto: normalised([0.85, 0.8, 0.8, 0.8, 0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.05, 1.05, 1.1, 1.2, 1.25, 1.25, 1.2, 1.1, 1, 0.95, 0.9, 0.9, 0.85, 0.85]),
} as const;

// ---------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: a tiny 32-bit PRNG, uniform in [0, 1). */
export const mulberry32 = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

const fmix32 = (value: number): number => {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
};

/** FNV-1a over the UTF-16 units, finished with murmur3's mix. */
export const hashSeed = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return fmix32(h);
};

const combine = (a: number, b: number): number => fmix32(a ^ fmix32(b + 0x9e3779b9));

/** Marsaglia's polar method. */
export const standardNormal = (random: () => number): number => {
  for (;;) {
    const u = 2 * random() - 1;
    const v = 2 * random() - 1;
    const s = u * u + v * v;
    if (s > 0 && s < 1) return u * Math.sqrt((-2 * Math.log(s)) / s);
  }
};

/** Bailey's polar method for Student's t with `degrees` degrees of freedom. */
export const studentT = (random: () => number, degrees: number): number => {
  for (;;) {
    const u = 2 * random() - 1;
    const v = 2 * random() - 1;
    const w = u * u + v * v;
    if (w > 0 && w <= 1) return u * Math.sqrt((degrees * (w ** (-2 / degrees) - 1)) / w);
  }
};

const UNIT_T = Math.sqrt((T_DEGREES - 2) / T_DEGREES);

// ---------------------------------------------------------------------------------------------
// One symbol's path

export interface PathState {
  step: number;
  logReturn: number;
  logVol: number;
  volMultiplier: number;
  /** The last open step and its values: what the quote shows. */
  frozenStep: number;
  frozenLogReturn: number;
  frozenVolMultiplier: number;
}

class PricePath {
  private readonly cursor: PathState;
  private readonly checkpoints = new Map<number, Readonly<PathState>>();
  private readonly stepSd: number;
  private readonly jumpSd: number;
  private readonly jumpChance: number;
  private readonly rhythm: readonly number[];

  constructor(
    private readonly symbol: SimulatedSymbol,
    private readonly seed: number,
    private readonly origin: number,
  ) {
    const tradingDays = TRADING_DAYS_PER_YEAR[symbol.schedule];
    this.stepSd = symbol.annualVolatility / Math.sqrt((tradingDays * 86_400_000) / STEP_MS);
    this.jumpSd = symbol.annualVolatility * JUMP_SIZE;
    this.jumpChance = (JUMPS_PER_DAY * STEP_MS) / 86_400_000;
    this.rhythm = RHYTHM[symbol.schedule];
    const random = mulberry32(combine(seed, 0));
    const logVol = VOL_OF_VOL * standardNormal(random);
    const volMultiplier = Math.exp(logVol - VOL_OF_VOL * VOL_OF_VOL);
    this.cursor = { step: 0, logReturn: 0, logVol, volMultiplier, frozenStep: 0, frozenLogReturn: 0, frozenVolMultiplier: volMultiplier };
    this.checkpoints.set(0, { ...this.cursor });
  }

  /** Continues from a saved hourly checkpoint instead of walking from step 0. */
  resumeFrom(checkpoint: Readonly<PathState>): void {
    this.checkpoints.set(checkpoint.step, { ...checkpoint });
    if (this.cursor.step < checkpoint.step) Object.assign(this.cursor, checkpoint);
  }

  /** The hourly checkpoint at or below `step`, walking there if needed. */
  checkpointAtOrBelow(step: number): Readonly<PathState> {
    const mark = Math.floor(step / CHECKPOINT_STEPS) * CHECKPOINT_STEPS;
    if (!this.checkpoints.has(mark)) this.stateAt(Math.max(mark, this.cursor.step));
    return this.checkpoints.get(mark) ?? this.stateAt(mark);
  }

  stateAt(step: number): Readonly<PathState> {
    if (step >= this.cursor.step) {
      while (this.cursor.step < step) {
        this.advance(this.cursor);
        if (this.cursor.step % CHECKPOINT_STEPS === 0) this.checkpoints.set(this.cursor.step, { ...this.cursor });
      }
      return this.cursor;
    }
    // Behind the cursor: replay from the checkpoint below, leaving the cursor where it is.
    const start = this.checkpoints.get(Math.floor(step / CHECKPOINT_STEPS) * CHECKPOINT_STEPS);
    if (!start) throw new Error(`no checkpoint below step ${step}`);
    const state = { ...start };
    while (state.step < step) this.advance(state);
    return state;
  }

  private advance(state: PathState): void {
    const step = state.step + 1;
    const time = this.origin + step * STEP_MS;
    const random = mulberry32(combine(this.seed, step));
    if (step % STEPS_PER_MINUTE === 0) {
      const shock = standardNormal(random);
      state.logVol = VOL_PERSISTENCE * state.logVol + VOL_OF_VOL * Math.sqrt(1 - VOL_PERSISTENCE ** 2) * shock;
      state.volMultiplier = Math.exp(state.logVol - VOL_OF_VOL * VOL_OF_VOL);
    }
    const open = isMarketOpen(this.symbol.schedule, time);
    const sd = this.stepSd * (this.rhythm[hourOf(time)] ?? 1) * state.volMultiplier * (open ? 1 : CLOSED_VOLATILITY);
    let move = sd * UNIT_T * studentT(random, T_DEGREES);
    if (random() < this.jumpChance) move += this.jumpSd * standardNormal(random);
    state.step = step;
    state.logReturn += move;
    if (open) {
      state.frozenStep = step;
      state.frozenLogReturn = state.logReturn;
      state.frozenVolMultiplier = state.volMultiplier;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The feed: every symbol's path, plus pinned quotes

export interface FeedQuote {
  readonly symbol: string;
  readonly bid: number;
  readonly ask: number;
  /** ms; the time of the last price change. */
  readonly time: number;
}

/** A quote fixed by hand (tests, demos) until released. */
export interface PinnedQuote {
  readonly bid: number;
  readonly ask: number;
  readonly since: string;
}

/** Where a path was re-based: from `step` on, bid = `bid` × exp(L(now) − `logReturn`). */
export interface PathAnchor {
  readonly step: number;
  readonly bid: number;
  readonly logReturn: number;
}

export interface PriceFeedState {
  readonly seed: string;
  /** ISO 8601, a whole second: step 0 of every path. */
  readonly origin: string;
  readonly pins: Readonly<Record<string, PinnedQuote>>;
  readonly anchors: Readonly<Record<string, PathAnchor>>;
  /**
   * Per symbol, the path's hourly checkpoint at or below the step the dealer has processed: a
   * restored feed continues from there instead of walking every second since the origin (a month
   * of seconds is about a second per symbol). Quotes before it are not available after a restore.
   */
  readonly resume?: Readonly<Record<string, PathState>>;
}

/** Rounds to `digits` decimals; dividing two exact integers gives the double nearest the decimal. */
export const roundToDigits = (value: number, digits: number): number => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

export class PriceFeed {
  private readonly paths = new Map<string, PricePath>();
  private readonly symbols = new Map<string, SimulatedSymbol>();
  private readonly seedHash: number;
  private readonly originMs: number;
  private pins: Record<string, PinnedQuote>;
  private anchors: Record<string, PathAnchor>;
  /** The pins as feed quotes, ready to hand out every second. */
  private readonly pinnedQuotes = new Map<string, FeedQuote>();
  /**
   * Each symbol's last quote computed from its path, with its step: the dealer asks for the same
   * second's quote once per position and conversion while it catches up, thousands of times with
   * thousands of accounts. A quote depends only on the step and the symbol's anchor.
   */
  private readonly pathQuotes = new Map<string, { readonly step: number; readonly quote: FeedQuote }>();

  constructor(
    symbols: readonly SimulatedSymbol[],
    private readonly initial: PriceFeedState,
  ) {
    for (const symbol of symbols) this.symbols.set(symbol.info.symbol, symbol);
    this.seedHash = hashSeed(initial.seed);
    this.originMs = Date.parse(initial.origin);
    if (!Number.isFinite(this.originMs) || this.originMs % STEP_MS !== 0) throw new Error(`bad price origin ${initial.origin}`);
    this.pins = { ...initial.pins };
    this.anchors = { ...initial.anchors };
    for (const [symbol, pin] of Object.entries(this.pins)) {
      this.pinnedQuotes.set(symbol, { symbol, bid: pin.bid, ask: pin.ask, time: Date.parse(pin.since) });
    }
  }

  static create(symbols: readonly SimulatedSymbol[], seed: string | number, originMs: number): PriceFeed {
    const origin = new Date(Math.floor(originMs / STEP_MS) * STEP_MS).toISOString();
    return new PriceFeed(symbols, { seed: String(seed), origin, pins: {}, anchors: {} });
  }

  /** The feed's state; with `processedStep`, the checkpoints to resume the paths from. */
  state(processedStep?: number): PriceFeedState {
    const base = { seed: this.initial.seed, origin: this.initial.origin, pins: { ...this.pins }, anchors: { ...this.anchors } };
    if (processedStep === undefined) return base;
    const resume: Record<string, PathState> = { ...this.initial.resume };
    for (const [symbol, path] of this.paths) resume[symbol] = { ...path.checkpointAtOrBelow(processedStep) };
    return Object.keys(resume).length > 0 ? { ...base, resume } : base;
  }

  stepAt(timeMs: number): number {
    return Math.max(0, Math.floor((timeMs - this.originMs) / STEP_MS));
  }

  timeOfStep(step: number): number {
    return this.originMs + step * STEP_MS;
  }

  isPinned(symbol: string): boolean {
    return this.pinnedQuotes.has(symbol);
  }

  quoteAt(symbol: string, timeMs: number): FeedQuote {
    const pinned = this.pinnedQuotes.get(symbol);
    if (pinned) return pinned;
    const step = this.stepAt(timeMs);
    const known = this.pathQuotes.get(symbol);
    if (known?.step === step) return known.quote;
    const quote = this.pathQuote(symbol, step);
    this.pathQuotes.set(symbol, { step, quote });
    return quote;
  }

  private pathQuote(symbol: string, step: number): FeedQuote {
    const spec = this.spec(symbol);
    const state = this.path(symbol).stateAt(step);
    const anchor = this.anchors[symbol] ?? { step: 0, bid: spec.initialBid, logReturn: 0 };
    const { digits } = spec.info;
    const bid = roundToDigits(anchor.bid * Math.exp(state.frozenLogReturn - anchor.logReturn), digits);
    const quotedAt = this.timeOfStep(state.frozenStep);
    const spread = Math.max(1, Math.round(spec.typicalSpread * this.spreadFactor(spec, state.frozenVolMultiplier, quotedAt)));
    return { symbol, bid, ask: roundToDigits(bid + spread / 10 ** digits, digits), time: quotedAt };
  }

  /** Fixes the quote of `symbol` from `timeMs` on; ask defaults to bid + the typical spread. */
  pin(symbol: string, timeMs: number, bid: number, ask?: number): PinnedQuote {
    const { info, typicalSpread } = this.spec(symbol);
    const pinnedBid = roundToDigits(bid, info.digits);
    const pinnedAsk = roundToDigits(ask ?? pinnedBid + typicalSpread / 10 ** info.digits, info.digits);
    if (!(pinnedBid > 0) || pinnedAsk < pinnedBid) throw new Error(`bad pinned quote ${symbol} ${bid}/${ask}`);
    const pin = { bid: pinnedBid, ask: pinnedAsk, since: new Date(timeMs).toISOString() };
    this.pins[symbol] = pin;
    this.pinnedQuotes.set(symbol, { symbol, bid: pin.bid, ask: pin.ask, time: timeMs });
    this.pathQuotes.delete(symbol);
    return pin;
  }

  /** Lets the path move again, from the pinned bid: no jump at release. */
  release(symbol: string, timeMs: number): void {
    const pin = this.pins[symbol];
    if (!pin) return;
    const step = this.stepAt(timeMs);
    this.anchors[symbol] = { step, bid: pin.bid, logReturn: this.path(symbol).stateAt(step).frozenLogReturn };
    delete this.pins[symbol];
    this.pinnedQuotes.delete(symbol);
    this.pathQuotes.delete(symbol);
  }

  private spreadFactor(spec: SimulatedSymbol, volMultiplier: number, timeMs: number): number {
    const widening = 1 + SPREAD_VOL_SENSITIVITY * Math.max(0, volMultiplier - 1);
    const minuteOfDay = Math.floor(timeMs / 60_000) % 1440;
    const rollover = minuteOfDay >= ROLLOVER_HOUR_UTC * 60 && minuteOfDay < ROLLOVER_HOUR_UTC * 60 + ROLLOVER_SPREAD_MINUTES;
    return widening * (spec.schedule === 'forex' && rollover ? ROLLOVER_SPREAD_FACTOR : 1);
  }

  private spec(symbol: string): SimulatedSymbol {
    const spec = this.symbols.get(symbol);
    if (!spec) throw new Error(`unknown symbol ${symbol}`);
    return spec;
  }

  private path(symbol: string): PricePath {
    let path = this.paths.get(symbol);
    if (!path) {
      path = new PricePath(this.spec(symbol), combine(this.seedHash, hashSeed(symbol)), this.originMs);
      const saved = this.initial.resume?.[symbol];
      if (saved) path.resumeFrom(saved);
      this.paths.set(symbol, path);
    }
    return path;
  }
}
