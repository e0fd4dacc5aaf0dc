// One scrape reduced to the series the server view needs: each gauge and
// counter one number, each histogram its cumulative buckets, summed over the
// label sets (engines, ranks) — only the arm's model's when the server labels
// its series by model. Kept small: a trial holds one per scrape.

import type { Runtime } from "../common/runtimes.ts";
import type { Exposition, Sample } from "./parse.ts";
import {
  COUNTERS,
  type CounterSeries,
  GAUGES,
  type GaugeSeries,
  HISTOGRAMS,
  type HistogramSeries,
} from "./runtimes.ts";

export interface Buckets {
  /** Upper bounds in seconds, ascending; the last is +Inf. */
  le: number[];
  /** Cumulative counts at each bound. */
  counts: number[];
  sumS: number;
  count: number;
}

export interface Snapshot {
  /** When the scrape answered (the trial's clock, ms). */
  atMs: number;
  gauges: Partial<Record<GaugeSeries, number>>;
  counters: Partial<Record<CounterSeries, number>>;
  histograms: Partial<Record<HistogramSeries, Buckets>>;
}

/** Every sample by its own name. */
export function samplesByName(exposition: Exposition): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const family of exposition.families.values()) {
    for (const s of family.samples) {
      const list = out.get(s.name);
      if (list) list.push(s);
      else out.set(s.name, [s]);
    }
  }
  return out;
}

/** The metric names a server exposes (counters with `_total`), to compare two arms'. */
export function metricNames(exposition: Exposition): string[] {
  const names = new Set<string>();
  for (const f of exposition.families.values()) {
    if (f.samples.length === 0) continue;
    names.add(f.type === "counter" && !f.name.endsWith("_total") ? `${f.name}_total` : f.name);
  }
  return [...names].sort();
}

export function snapshot(
  samples: Map<string, Sample[]>,
  runtime: Runtime,
  model: string,
  atMs: number,
): Snapshot {
  const pick = (names: readonly string[], suffix = ""): Sample[] => {
    for (const name of names) {
      const found = samples.get(name + suffix);
      if (found && found.length > 0) return forModel(found, model);
    }
    return [];
  };
  const out: Snapshot = { atMs, gauges: {}, counters: {}, histograms: {} };
  for (const [series, spec] of Object.entries(GAUGES) as [
    GaugeSeries,
    (typeof GAUGES)[GaugeSeries],
  ][]) {
    const found = pick(spec.names[runtime]).filter((s) => Number.isFinite(s.value));
    if (found.length === 0) continue;
    const total = found.reduce((a, s) => a + s.value, 0);
    out.gauges[series] = spec.ratio ? total / found.length : total;
  }
  for (const [series, names] of Object.entries(COUNTERS) as [
    CounterSeries,
    (typeof COUNTERS)[CounterSeries],
  ][]) {
    const found = pick(names[runtime]);
    if (found.length > 0) out.counters[series] = found.reduce((a, s) => a + s.value, 0);
  }
  for (const [series, names] of Object.entries(HISTOGRAMS) as [
    HistogramSeries,
    (typeof HISTOGRAMS)[HistogramSeries],
  ][]) {
    const name = names[runtime].find((n) => (samples.get(`${n}_bucket`)?.length ?? 0) > 0);
    if (name === undefined) continue;
    const buckets = histogram(
      forModel(samples.get(`${name}_bucket`) ?? [], model),
      pick([name], "_sum"),
      pick([name], "_count"),
    );
    if (buckets) out.histograms[series] = buckets;
  }
  return out;
}

/** A server's series for several models: only this model's, when it is among them. */
function forModel(samples: Sample[], model: string): Sample[] {
  const own = samples.filter((s) => s.labels.model_name === model);
  return own.length > 0 ? own : samples;
}

/** Buckets summed by bound over the label sets; null when they make no histogram. */
function histogram(bucketSamples: Sample[], sums: Sample[], counts: Sample[]): Buckets | null {
  const byBound = new Map<number, number>();
  for (const s of bucketSamples) {
    const le =
      s.labels.le === undefined ? Number.NaN : Number(s.labels.le.replace(/^\+?Inf$/, "Infinity"));
    if (Number.isNaN(le)) return null;
    byBound.set(le, (byBound.get(le) ?? 0) + s.value);
  }
  const le = [...byBound.keys()].sort((a, b) => a - b);
  if (le.at(-1) !== Number.POSITIVE_INFINITY) return null;
  const total = (xs: Sample[]) => xs.reduce((a, s) => a + s.value, 0);
  const countsAt = le.map((b) => byBound.get(b) as number);
  return {
    le,
    counts: countsAt,
    sumS: total(sums),
    count: counts.length > 0 ? total(counts) : (countsAt.at(-1) as number),
  };
}
