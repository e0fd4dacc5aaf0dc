// Scrapes a server's /metrics beside one trial: once before it, every interval
// during it, once after it drained. Its own connection, one scrape in flight at
// a time, a timer that never delays a send by more than a parse: the load
// generator's schedule does not wait for it. A failed scrape is a note, never
// an error: the gate does not depend on the server's metrics.

import { Agent, request } from "undici";
import { readCappedBody } from "../common/body.ts";
import { errorMessage } from "../common/errors.ts";
import { plural } from "../common/format.ts";
import { RUNTIME_LABELS, type Runtime } from "../common/runtimes.ts";
import { type Exposition, parseExposition, parseExpositionSliced } from "./parse.ts";
import { detectRuntime, gaugeSamples } from "./runtimes.ts";
import { metricNames, type Snapshot, samplesByName, snapshot } from "./snapshot.ts";
import { type ServerView, serverView } from "./view.ts";

export interface ServerMetricsOptions {
  url: string;
  intervalS: number;
  /** "auto": detected from the names the server exposes. */
  runtime: Runtime | "auto";
}

/** A trial whose server metrics could not be had: why. */
export interface ScrapeFailure {
  url: string;
  error: string;
}

export type ServerMetrics = ServerView | ScrapeFailure;

export const scrapeFailed = (m: ServerMetrics | null | undefined): m is ScrapeFailure =>
  m !== null && m !== undefined && "error" in m;

/** GETs the metrics text; throws on anything but a 200 with a body. */
export type FetchMetrics = (url: string, timeoutMs: number) => Promise<string>;

const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The real fetch: its own agent, so a scrape never takes a load connection. */
export function metricsFetcher(): { fetch: FetchMetrics; close: () => Promise<void> } {
  const agent = new Agent({ connections: 1, headersTimeout: 0, bodyTimeout: 0 });
  return {
    fetch: async (url, timeoutMs) => {
      // Per-request timeouts, not an AbortSignal (a third of a GET's CPU), and
      // the body as bytes decoded once (body.text() costs half as much again).
      const res = await request(url, {
        dispatcher: agent,
        headers: { accept: "text/plain;version=0.0.4, application/openmetrics-text;q=0.5" },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new Error(`answered HTTP ${res.statusCode}`);
      }
      // The cap while reading and one deadline for the whole body: an endless or
      // dripping page ends the scrape, not the trial.
      const bytes = await readCappedBody(res.body, MAX_BODY_BYTES, timeoutMs);
      return bytes.toString("utf8");
    },
    close: () => agent.close(),
  };
}

interface Deps {
  fetch: FetchMetrics;
  /** The trial's clock (ms), to place each scrape in or out of the window. */
  now: () => number;
}

/** One trial's scrapes. start() before the trial, finish() after it drained. */
export class TrialScrape {
  private readonly options: ServerMetricsOptions;
  private readonly model: string;
  private readonly deps: Deps;
  private runtime: Runtime | null = null;
  /** The sample names the scrapes inside the window read: the runtime's gauges. */
  private gauges = new Set<string>();
  private before: Snapshot | undefined;
  private readonly during: Snapshot[] = [];
  private failed = 0;
  private readonly notes: string[] = [];
  private lastError = "";
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;
  private error: string | undefined;

  constructor(options: ServerMetricsOptions, model: string, deps: Deps) {
    this.options = options;
    this.model = model;
    this.deps = deps;
  }

  async start(): Promise<void> {
    const first = await this.scrape();
    if (!first) {
      this.error = `GET ${this.options.url} ${this.lastError}`;
      return;
    }
    this.runtime =
      this.options.runtime === "auto"
        ? detectRuntime(samplesByName(first).keys())
        : this.options.runtime;
    if (this.runtime === null)
      this.notes.push(
        `its names are none of ${Object.values(RUNTIME_LABELS).join(", ")}'s: no series read (set metrics-runtime)`,
      );
    if (first.badLines > 0)
      this.notes.push(`${first.badLines} lines did not parse, e.g. ${first.firstBad[0]}`);
    if (this.runtime !== null) this.gauges = gaugeSamples(this.runtime);
    this.before = this.reduce(first);
    this.tick();
  }

  /** The scrapes during the trial: when (on the trial's clock), and the queue then. */
  gaugeSeries(): { atMs: number; running: number | undefined; waiting: number | undefined }[] {
    return this.during.map((s) => ({
      atMs: s.atMs,
      running: s.gauges.running,
      waiting: s.gauges.waiting,
    }));
  }

  async finish(windowStartMs: number, windowEndMs: number): Promise<ServerMetrics> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
    const url = this.options.url;
    if (!this.before) return { url, error: this.error ?? `GET ${url} was not scraped` };
    const last = await this.scrape();
    if (!last) return { url, error: `GET ${url} after the trial ${this.lastError}` };
    if (this.failed > 0)
      this.notes.push(`${plural(this.failed, "scrape")} failed, the last: ${this.lastError}`);
    return serverView({
      url,
      runtime: this.runtime,
      before: this.before,
      after: this.reduce(last),
      during: this.during,
      windowStartMs,
      windowEndMs,
      failedScrapes: this.failed,
      names: metricNames(last),
      notes: this.notes,
    });
  }

  /**
   * The next scrape an interval after the last one began; never two at once.
   * Inside the trial only the gauges are read, a slice of the page at a time:
   * the load generator's sends never wait for a whole page's parse.
   */
  private tick(lastBeganMs = this.deps.now()): void {
    if (this.stopped) return;
    const waitMs = Math.max(0, lastBeganMs + this.options.intervalS * 1000 - this.deps.now());
    this.timer = setTimeout(() => {
      const beganMs = this.deps.now();
      this.inFlight = this.fetch().then(async (text) => {
        if (text !== null && !this.stopped)
          this.during.push(
            this.reduce(await parseExpositionSliced(text, (n) => this.gauges.has(n))),
          );
        this.tick(beganMs);
      });
    }, waitMs);
    this.timer.unref();
  }

  private async scrape(): Promise<Exposition | null> {
    const text = await this.fetch();
    return text === null ? null : parseExposition(text);
  }

  private async fetch(): Promise<string | null> {
    try {
      const timeoutMs = Math.max(1000, Math.min(5000, this.options.intervalS * 1000));
      return await this.deps.fetch(this.options.url, timeoutMs);
    } catch (error) {
      this.failed++;
      this.lastError = errorMessage(error);
      return null;
    }
  }

  private reduce(e: Exposition): Snapshot {
    const at = this.deps.now();
    return this.runtime === null
      ? { atMs: at, gauges: {}, counters: {}, histograms: {} }
      : snapshot(samplesByName(e), this.runtime, this.model, at);
  }
}

/** The server's queue now: running and waiting requests; null when its metrics do not say. */
export async function readQueue(
  options: ServerMetricsOptions,
  model: string,
  fetch: FetchMetrics,
): Promise<{ running: number; waiting: number } | null> {
  let text: string;
  try {
    text = await fetch(options.url, 2000);
  } catch {
    return null;
  }
  const samples = samplesByName(parseExposition(text));
  const runtime = options.runtime === "auto" ? detectRuntime(samples.keys()) : options.runtime;
  if (runtime === null) return null;
  const { running, waiting } = snapshot(samples, runtime, model, 0).gauges;
  return running === undefined || waiting === undefined ? null : { running, waiting };
}
