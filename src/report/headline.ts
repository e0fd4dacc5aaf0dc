// The verdict in one sentence, made from the run's structured findings.

import { signedPercent } from "../common/format.ts";
import type { MetricComparison } from "../compare/decide.ts";
import type { GateRun } from "./results.ts";

function describe(c: MetricComparison): string {
  return `${c.label} ${signedPercent(c.change)} (limit ${signedPercent(c.higher_is_worse ? c.tolerance : -c.tolerance)})`;
}

export function headlineFor(
  run: Pick<GateRun, "verdict" | "guards" | "comparisons" | "quality">,
): string {
  const { guards, comparisons, quality } = run;
  switch (run.verdict) {
    case "error": {
      const first = guards[0];
      // A bad setting says so itself; nothing was measured.
      if (first?.code === "configuration") return first.message;
      const more = guards.length > 1 ? ` (and ${guards.length - 1} more)` : "";
      return `no performance verdict: ${first?.message ?? "unknown reason"}${more}`;
    }
    case "fail": {
      const metrics = comparisons.filter((c) => c.verdict === "regressed").map(describe);
      const checks =
        quality?.verdict === "fail"
          ? [`quality ${quality.reasons.map((r) => r.check).join(", ")}`]
          : [];
      return `regressed: ${[...metrics, ...checks].join(", ")}`;
    }
    case "inconclusive":
      return `beyond the tolerance but within the noise: ${comparisons
        .filter((c) => c.verdict === "inconclusive")
        .map(describe)
        .join(", ")} — more pairs would decide`;
    case "pass":
      return "no gated metric regressed beyond its tolerance and the noise";
  }
}
