// The contract's diff between the arms: an item that holds on the baseline
// and breaks on the candidate is a regression, one whose value changed with
// nothing broken a behaviour change, one broken on both pre-existing. A
// regression or change counts only when a re-run of both arms shows it again
// (else it is a flake, listed apart). Pure: a results file is re-decided by it.

import type { Arm } from "../common/arms.ts";
import type { ContractItem } from "./items.ts";
import type { RuntimeId } from "./runtime.ts";

export interface ContractFinding {
  id: string;
  baseline: ContractItem;
  candidate: ContractItem;
}

export interface ContractReport {
  verdict: "pass" | "fail";
  runtimes: Record<Arm, RuntimeId | null>;
  seconds: Record<Arm, number>;
  items: Record<Arm, ContractItem[]>;
  /** The probes of the suspect items, run again on both arms. */
  reruns: Record<Arm, ContractItem[]>;
  /** Held on the baseline, broke on the candidate, both times: they fail the gate. */
  regressions: ContractFinding[];
  /** Changed with nothing documented broken, both times: listed for the reviewer. */
  changes: ContractFinding[];
  /** Broken on the candidate only, held on it once fixed: reported, never gated. */
  fixed: ContractFinding[];
  /** Broken on both arms: shown once. */
  preexisting: ContractFinding[];
  /** A difference the re-run did not show again. */
  flaky: ContractFinding[];
}

type Kind = "regression" | "change" | "fixed" | "preexisting" | "same";

export function classify(b: ContractItem, c: ContractItem): Kind {
  if (b.holds === true && c.holds === false) return "regression";
  if (b.holds === false && c.holds === true) return "fixed";
  if (b.holds === false && c.holds === false) return "preexisting";
  return b.value === c.value ? "same" : "change";
}

/**
 * The items both arms recorded. One recorded by one arm only follows from
 * another item that differs (a probe that got no answer records only its
 * `answered` item), which carries the difference.
 */
function pairs(items: Record<Arm, ContractItem[]>): ContractFinding[] {
  const cand = new Map(items.candidate.map((i) => [i.id, i]));
  return items.baseline.flatMap((baseline) => {
    const candidate = cand.get(baseline.id);
    return candidate ? [{ id: baseline.id, baseline, candidate }] : [];
  });
}

/** The re-run shows the same difference: the same kind, and for a change the same values on each arm. */
function shownAgain(
  first: ContractFinding,
  kind: Kind,
  again: ContractFinding | undefined,
): boolean {
  if (!again || classify(again.baseline, again.candidate) !== kind) return false;
  return (
    kind === "regression" ||
    (again.baseline.value === first.baseline.value &&
      again.candidate.value === first.candidate.value)
  );
}

/** The items whose difference needs a re-run: regressions and changes. */
export function suspectIds(items: Record<Arm, ContractItem[]>): string[] {
  return pairs(items)
    .filter((p) => ["regression", "change"].includes(classify(p.baseline, p.candidate)))
    .map((p) => p.id);
}

export function compareContract(
  items: Record<Arm, ContractItem[]>,
  reruns: Record<Arm, ContractItem[]>,
  runtimes: Record<Arm, RuntimeId | null>,
  seconds: Record<Arm, number>,
): ContractReport {
  const again = new Map(pairs(reruns).map((p) => [p.id, p]));
  const report: ContractReport = {
    verdict: "pass",
    runtimes,
    seconds,
    items,
    reruns,
    regressions: [],
    changes: [],
    fixed: [],
    preexisting: [],
    flaky: [],
  };
  for (const p of pairs(items)) {
    const kind = classify(p.baseline, p.candidate);
    if (kind === "same") continue;
    if (kind === "fixed") report.fixed.push(p);
    else if (kind === "preexisting") report.preexisting.push(p);
    else if (!shownAgain(p, kind, again.get(p.id))) report.flaky.push(p);
    else if (kind === "regression") report.regressions.push(p);
    else report.changes.push(p);
  }
  report.verdict = report.regressions.length > 0 ? "fail" : "pass";
  return report;
}

/** Both arms' items, empty. */
export const noItems = (): Record<Arm, ContractItem[]> => ({ baseline: [], candidate: [] });
