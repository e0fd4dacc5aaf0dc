// What the verdict cost, in one line under the sections: the pairs and
// trials, the requests, the endpoints' time under load, the suites' and the
// servers' starts, and the whole run.

import { plural } from "../common/format.ts";
import type { GateResults } from "../results/model.ts";

/** A duration as people read it: 45 s, 3 min 20 s, 1 h 05 min. */
export function duration(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) {
    const [m, r] = [Math.floor(s / 60), Math.round(s % 60)];
    return r === 0 ? `${m} min` : `${m} min ${r} s`;
  }
  const [h, m] = [Math.floor(s / 3600), Math.round((s % 3600) / 60)];
  return `${h} h ${String(m).padStart(2, "0")} min`;
}

export function costLine(r: GateResults): string {
  const c = r.cost;
  if (!c) return "";
  const suites = Object.entries(c.suites_s).filter(([, s]) => s !== undefined);
  const suitesTotal = suites.reduce((t, [, s]) => t + (s ?? 0), 0);
  const parts = [
    `${plural(c.pairs, "pair")} (${plural(c.trials, "trial")} measured; ${c.requests.baseline.toLocaleString("en-US")} requests on the baseline, ${c.requests.candidate.toLocaleString("en-US")} on the candidate)`,
    `${duration(c.under_load_s)} of load on the endpoints`,
    ...(suites.length > 0
      ? [
          `the suites ${duration(suitesTotal)} (${suites.map(([id, s]) => `${id} ${duration(s ?? 0)}`).join(", ")})`,
        ]
      : []),
    ...(c.server_starts_s > 0 ? [`the servers' starts ${duration(c.server_starts_s)}`] : []),
  ];
  const range = (r: { first: number; most: number }, say: (x: number) => string) =>
    r.first === r.most ? say(r.first) : `${say(r.first)} to ${say(r.most)}`;
  const plan = c.plan
    ? ` The plan check predicted ${range(c.plan.pairs, String)} pairs, ${range(c.plan.under_load_s, duration)} of load.`
    : "";
  const suitesPlan = (c.suites_plan ?? []).map((p) => {
    const took = c.suites_s[p.suite];
    const items = r.accuracy?.overall.items;
    const said = `${range(p.requests, (x) => x.toLocaleString("en-US"))} requests${p.seconds ? `, at most ${range(p.seconds, duration)}` : ""}`;
    return ` For ${p.suite} it predicted ${said}${took !== undefined ? `; it took ${duration(took)}${items !== undefined ? ` over ${items.toLocaleString("en-US")} items` : ""}` : ""}.`;
  });
  const j = r.judge;
  const judged = j
    ? ` The judge was sent ${j.calls.toLocaleString("en-US")} requests (the plan said at most ${j.planned_calls.toLocaleString("en-US")}, retries aside).`
    : "";
  return `**Cost** — ${parts.join(", ")}; ${duration(c.total_s)} in all.${plan}${suitesPlan.join("")}${judged}`;
}
