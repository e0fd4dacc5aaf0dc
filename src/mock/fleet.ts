// Fleet mode: replicas behind the mock's one port, each its own engine, and
// an autoscaler loop (fleet-scaler.ts) that adds replicas after a cold start
// and takes them away by draining or cutting their streams — so the gate's
// autoscaling scenario meets scalers that are slow, flappy, cutting or
// scaling on the wrong metric. A request goes to the ready replica with the
// least running + waiting (ties: the lowest index), as a least-load balancer.

import type { IncomingMessage, ServerResponse } from "node:http";
import { at } from "../common/arrays.ts";
import { mixSeeds } from "../workload/rng.ts";
import { type CompletionStats, Completions, sendError } from "./completion.ts";
import { Engine, type EngineStats } from "./engine.ts";
import { Autoscaler } from "./fleet-scaler.ts";
import { EngineMetrics } from "./metrics.ts";
import type { MockProfile } from "./profile.ts";
import { MockRoutes } from "./routes.ts";

export interface FleetStats {
  /** Replicas taking traffic, and those still in their cold start. */
  ready: number;
  pending: number;
  /** Replicas the scaler started, and those it took away (pending ones included). */
  scaleUps: number;
  scaleIns: number;
  /** Open responses destroyed by a scale-in: cut at once, or left when a drain ran out. */
  cutStreams: number;
}

type ReplicaState = "pending" | "ready" | "draining";

interface Replica {
  index: number;
  state: ReplicaState;
  engine: Engine;
  routes: MockRoutes;
  /** Responses not yet finished, so a scale-in can cut them or wait for them. */
  open: Set<ServerResponse>;
  /** Its cold start, or its drain's next look. */
  timer: NodeJS.Timeout | undefined;
}

/** How long a drain waits when the profile's drainS is 0 (Kubernetes' default grace period). */
const DRAIN_FALLBACK_S = 30;
const DRAIN_POLL_MS = 50;
const COUNTERS = [
  "promptTokens",
  "generationTokens",
  "prefixQueries",
  "prefixHits",
  "finished",
  "preemptions",
  "specDrafts",
  "specDraftTokens",
] as const;
const HISTOGRAMS = ["ttft", "itl", "queueTime", "e2e"] as const;

export class Fleet {
  private readonly profile: MockProfile;
  private readonly stats: CompletionStats;
  private readonly clock: () => Date;
  private readonly onCrash: () => void;
  private readonly scaler: Autoscaler;
  private readonly syncTimer: NodeJS.Timeout;
  /** Live replicas in the order they were added (so by index). */
  private replicas: Replica[] = [];
  private nextIndex = 0;
  private readonly counts = { scaleUps: 0, scaleIns: 0, cutStreams: 0 };
  /** What replicas already taken away counted: /metrics' counters never go back. */
  private readonly retired = new EngineMetrics();
  private readonly retiredStats = { maxRunning: 0, steps: 0, promptTokens: 0, cachedTokens: 0 };
  /** What a scrape renders; one object, so its _created stays put. */
  private readonly totals = new EngineMetrics();
  private closed = false;

  constructor(
    profile: MockProfile,
    stats: CompletionStats,
    clock: () => Date,
    onCrash: () => void,
  ) {
    this.profile = profile;
    this.stats = stats;
    this.clock = clock;
    this.onCrash = onCrash;
    for (let i = 0; i < profile.fleetReplicas; i++) this.add("ready");
    this.scaler = new Autoscaler({
      minReplicas: profile.fleetReplicas,
      maxReplicas: profile.fleetMaxReplicas,
      target: profile.fleetTarget,
      stabilizationS: profile.fleetStabilizationS,
    });
    this.syncTimer = setInterval(() => this.sync(), profile.fleetIntervalS * 1000);
    // The server's socket keeps a running mock alive; the scaler alone must not.
    this.syncTimer.unref();
  }

  route(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path === "/metrics" && this.profile.metricsFormat !== "off") {
      this.metrics(res);
      return;
    }
    const replica = this.pick();
    if (replica === undefined) {
      sendError(res, {
        status: 503,
        message: "No replica is ready",
        type: "service_unavailable",
        param: null,
        code: "no_ready_replica",
      });
      return;
    }
    // /health and a metrics page that is off are the replica's own answers, unmarked.
    if (req.method !== "GET" || (path !== "/health" && path !== "/metrics")) {
      res.setHeader("x-replica", `r${replica.index}`);
      this.track(replica, res);
    }
    replica.routes.route(req, res, raw);
  }

  fleetStats(): FleetStats {
    return {
      ready: this.inState("ready").length,
      pending: this.inState("pending").length,
      ...this.counts,
    };
  }

  /** The replicas' engines summed, those taken away included. */
  engineStats(): EngineStats {
    const out = { ...this.retiredStats, running: 0, waiting: 0 };
    for (const r of this.replicas) {
      const s = r.engine.stats();
      out.running += s.running;
      out.waiting += s.waiting;
      out.maxRunning = Math.max(out.maxRunning, s.maxRunning);
      out.steps += s.steps;
      out.promptTokens += s.promptTokens;
      out.cachedTokens += s.cachedTokens;
    }
    return out;
  }

  /** Whether any replica has anything running or waiting. */
  busy(): boolean {
    return this.replicas.some((r) => r.engine.stats().running + r.engine.stats().waiting > 0);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.syncTimer);
    for (const r of this.replicas) {
      clearTimeout(r.timer);
      r.engine.close();
    }
  }

  private add(state: ReplicaState): Replica {
    const index = this.nextIndex++;
    // Replica 0 is the single server's twin; the others draw their own faults and jitter.
    const seed = index === 0 ? this.profile.seed : mixSeeds(this.profile.seed, index);
    const profile = { ...this.profile, seed };
    const engine = new Engine(profile);
    const completions = new Completions(profile, engine, this.stats, this.onCrash);
    const routes = new MockRoutes(profile, engine, completions, this.clock);
    const replica: Replica = { index, state, engine, routes, open: new Set(), timer: undefined };
    this.replicas.push(replica);
    return replica;
  }

  private inState(state: ReplicaState): Replica[] {
    return this.replicas.filter((r) => r.state === state);
  }

  private load(r: Replica): number {
    const g = r.engine.gauges();
    return g.running + g.waiting;
  }

  private pick(): Replica | undefined {
    let best: Replica | undefined;
    for (const r of this.inState("ready"))
      if (best === undefined || this.load(r) < this.load(best)) best = r;
    return best;
  }

  private track(replica: Replica, res: ServerResponse): void {
    replica.open.add(res);
    // On finish too: a kept-alive socket may carry the next request, which a cut must spare.
    const forget = () => replica.open.delete(res);
    res.on("finish", forget);
    res.on("close", forget);
  }

  /** The scaler's metric over the ready replicas. */
  private metric(ready: Replica[]): number {
    if (ready.length === 0) return 0;
    if (this.profile.fleetMetric === "gpu-busy")
      return (100 * ready.filter((r) => r.engine.gauges().running > 0).length) / ready.length;
    return ready.reduce((sum, r) => sum + this.load(r), 0) / ready.length;
  }

  private sync(): void {
    if (this.closed) return;
    const ready = this.inState("ready");
    const pending = this.inState("pending");
    const want = this.scaler.next(
      performance.now(),
      ready.length,
      pending.length,
      this.metric(ready),
    );
    for (let n = ready.length + pending.length; n < want; n++) this.scaleUp();
    // Replicas still starting go first, as a ReplicaSet deletes unready pods first; then the newest.
    const victims = [...pending.toReversed(), ...ready.toReversed()];
    for (const r of victims.slice(0, Math.max(0, ready.length + pending.length - want)))
      this.scaleIn(r);
  }

  private scaleUp(): void {
    this.counts.scaleUps++;
    const r = this.add("pending");
    r.timer = setTimeout(() => {
      r.state = "ready";
      r.timer = undefined;
    }, this.profile.fleetScaleUpDelayS * 1000);
    r.timer.unref();
  }

  private scaleIn(r: Replica): void {
    this.counts.scaleIns++;
    clearTimeout(r.timer);
    const wasReady = r.state === "ready";
    r.state = "draining";
    if (!wasReady || this.profile.fleetScaleIn === "cut") {
      this.retire(r);
      return;
    }
    const drainS = this.profile.drainS > 0 ? this.profile.drainS : DRAIN_FALLBACK_S;
    const untilMs = performance.now() + drainS * 1000;
    const look = () => {
      if (this.closed) return;
      if (r.open.size > 0 && performance.now() < untilMs) {
        r.timer = setTimeout(look, DRAIN_POLL_MS);
        r.timer.unref();
      } else this.retire(r);
    };
    look();
  }

  /** Cuts whatever is still open, closes the engine and keeps only its counters. */
  private retire(r: Replica): void {
    this.counts.cutStreams += r.open.size;
    for (const res of r.open) res.destroy();
    r.open.clear();
    r.engine.close();
    this.replicas = this.replicas.filter((x) => x !== r);
    addMetrics(this.retired, r.engine.metrics);
    const s = r.engine.stats();
    const t = this.retiredStats;
    t.maxRunning = Math.max(t.maxRunning, s.maxRunning);
    t.steps += s.steps;
    t.promptTokens += s.promptTokens;
    t.cachedTokens += s.cachedTokens;
  }

  private metrics(res: ServerResponse): void {
    const p = this.profile;
    const serving = this.replicas.filter((r) => r.state !== "pending");
    clearMetrics(this.totals);
    addMetrics(this.totals, this.retired);
    for (const r of serving) addMetrics(this.totals, r.engine.metrics);
    const gauges = serving.map((r) => r.engine.gauges());
    const text = this.totals.render(
      p.metricsFormat,
      p.models[0] ?? "",
      {
        running: gauges.reduce((a, g) => a + g.running, 0),
        waiting: gauges.reduce((a, g) => a + g.waiting, 0),
        // The mean: each replica has its own cache, so a sum could pass 1.
        kvCacheUsage: gauges.reduce((a, g) => a + g.kvCacheUsage, 0) / Math.max(1, gauges.length),
      },
      p.specDecodeTokens > 0 ? p.specDecodeAcceptance : undefined,
    );
    const replicas = `# HELP replicas Ready replicas behind the port.\n# TYPE replicas gauge\nreplicas ${this.inState("ready").length}\n`;
    res
      .writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" })
      .end(text + replicas);
  }
}

function addMetrics(into: EngineMetrics, from: EngineMetrics): void {
  for (const k of COUNTERS) into[k] += from[k];
  for (const k of HISTOGRAMS) {
    const h = into[k];
    for (const [i, n] of from[k].counts.entries()) h.counts[i] = at(h.counts, i) + n;
    h.sumS += from[k].sumS;
    h.count += from[k].count;
  }
}

function clearMetrics(m: EngineMetrics): void {
  for (const k of COUNTERS) m[k] = 0;
  for (const k of HISTOGRAMS) {
    m[k].counts.fill(0);
    m[k].sumS = 0;
    m[k].count = 0;
  }
}
