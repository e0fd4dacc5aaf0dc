// Baseline versus candidate on a quality suite, paired per case. A case that
// differs between the arms in the first run is run again on both arms
// (quality-confirm-reruns times); it flips only when it flips consistently —
// one arm passing in every one of its runs, the other failing in every one —
// so a flake on either arm is listed, never counted.
// - Pre-existing: cases whose strict checks the baseline fails in every run
//   are listed and excluded (a server without tools fails those on both arms).
// - Strict: a case the baseline passes and the candidate fails, consistently,
//   is confirmed and fails the gate (with 50–200 cases a McNemar test cannot
//   see a few new failures).
// - Quality, per check kind: b = cases flipped to failing on the candidate, c =
//   the reverse; the kind fails by rule.ts's test. A kind whose only new
//   failures are confirmed strict failures is "counted": the case fails the
//   gate once, as strict.

import { plural } from "../common/format.ts";
import { agree, answersSummary, describeAnswer, firstFailing } from "./answers.ts";
import { kindFails, mcnemarOneSided, type QualityRule } from "./rule.ts";
import type { CaseRun } from "./run.ts";
import type { QualityCase, Suite } from "./suite.ts";

export interface QualityFinding {
  /** "strict", a check kind, or "agreement". */
  check: string;
  /** The cases that newly fail it. */
  cases: string[];
  /** In words. */
  message: string;
}

export interface KindComparison {
  kind: string;
  n: number;
  baseline_rate: number;
  candidate_rate: number;
  b: number;
  c: number;
  p: number;
  /** "counted": some of its new failures are confirmed strict cases, which fail the gate once, as strict; the rest alone would not fail it. */
  decision: "pass" | "fail" | "counted";
  /** Cases that differed in some runs but not consistently: listed, never counted. */
  flaky: string[];
  /** Cases that flipped, with the candidate's (b) or the baseline's (c) failure codes. */
  flipped: {
    id: string;
    direction: "b" | "c";
    codes: string[];
    diff: string;
    /** What the failing side returned (the candidate for b, the baseline for c). */
    answer: string;
  }[];
}

export interface QualityReport {
  suite: string;
  cases: number;
  pre_existing: { id: string; codes: string[] }[];
  /** Cases failing a strict check on the candidate (confirmed: in every run, the baseline passing in every run). */
  strict: {
    id: string;
    codes: string[];
    candidate_failures: number;
    runs: number;
    confirmed: boolean;
    /** What the candidate returned in its first failing run (status, body or content excerpt). */
    answer: string;
  }[];
  kinds: KindComparison[];
  agreement: { n: number; agreed: number; gated: boolean; differing: string[] };
  finish_reasons: { baseline: Record<string, number>; candidate: Record<string, number> };
  tool_codes: { baseline: Record<string, number>; candidate: Record<string, number> };
  irregular_deltas: { baseline: string[]; candidate: string[] };
  /** Requests sent again on a fresh connection (the server had closed a kept-alive one). */
  reconnects: { baseline: number; candidate: number };
  verdict: "pass" | "fail";
  /** Why the quality verdict is fail: one finding per failing check. */
  reasons: QualityFinding[];
  raw: { id: string; baseline: string[]; candidate: string[] }[];
}

function strictCodes(run: CaseRun): string[] {
  return [
    ...new Set(
      run.attempts.flatMap((a) =>
        a.results.filter((r) => r.tier === "strict" && !r.pass).flatMap((r) => r.codes),
      ),
    ),
  ];
}

/**
 * Each check kind's result on a case, over its attempts — strict-tier results
 * too: a JSON-mode case that breaks counts in its kind's row (the decision
 * says when it is counted once, as strict), so the table adds up to the
 * headline. The implicit transport check has no row.
 */
function kindPasses(run: CaseRun): Map<string, { pass: boolean; codes: string[] }> {
  const out = new Map<string, { pass: boolean; codes: string[] }>();
  for (const attempt of run.attempts) {
    for (const r of attempt.results) {
      if (r.kind === "transport") continue;
      const prev = out.get(r.kind) ?? { pass: true, codes: [] };
      out.set(r.kind, {
        pass: prev.pass && r.pass,
        codes: [...new Set([...prev.codes, ...r.codes])],
      });
    }
  }
  return out;
}

/** Each case's runs on one arm: the first, then its re-runs. */
type Runs = Map<string, CaseRun[]>;

/** A check's state over a case's runs on one arm: passed in every run, failed in every run, or both. */
type State = "pass" | "fail" | "flaky";

function stateOf(runs: readonly CaseRun[], passes: (r: CaseRun) => boolean): State {
  const passed = runs.filter(passes).length;
  return passed === runs.length ? "pass" : passed === 0 ? "fail" : "flaky";
}

const strictState = (runs: readonly CaseRun[]) => stateOf(runs, (r) => strictCodes(r).length === 0);

const kindState = (runs: readonly CaseRun[], kind: string) =>
  stateOf(runs, (r) => kindPasses(r).get(kind)?.pass ?? true);

/** The cases whose first runs differ between the arms, in a strict check or any check kind. */
export function casesThatDiffer(baseline: CaseRun[], candidate: CaseRun[]): Set<string> {
  const cand = new Map(candidate.map((r) => [r.id, r]));
  const differ = new Set<string>();
  for (const b of baseline) {
    const k = cand.get(b.id);
    if (!k) continue;
    const [bk, kk] = [kindPasses(b), kindPasses(k)];
    const kinds = new Set([...bk.keys(), ...kk.keys()]);
    const kindDiffers = [...kinds].some(
      (kind) => (bk.get(kind)?.pass ?? true) !== (kk.get(kind)?.pass ?? true),
    );
    if (kindDiffers || (strictCodes(b).length === 0) !== (strictCodes(k).length === 0))
      differ.add(b.id);
  }
  return differ;
}

/**
 * The cases both arms answered: those the baseline fails a strict check on
 * in every run are pre-existing (excluded); of the rest, those the candidate
 * fails one on are strict suspects — confirmed when the candidate failed in
 * every run and the baseline passed in every run.
 */
function pairCases(suite: Suite, base: Runs, cand: Runs) {
  const paired: QualityCase[] = [];
  const preExisting: QualityReport["pre_existing"] = [];
  const strict: QualityReport["strict"] = [];
  const raw: QualityReport["raw"] = [];
  for (const c of suite.cases) {
    const [b, k] = [base.get(c.id) ?? [], cand.get(c.id) ?? []];
    const [b0, k0] = [b[0], k[0]];
    if (!b0 || !k0) continue;
    raw.push({
      id: c.id,
      baseline: b0.attempts.map((a) => a.answer.raw),
      candidate: k0.attempts.map((a) => a.answer.raw),
    });
    const baseState = strictState(b);
    if (baseState === "fail") {
      preExisting.push({ id: c.id, codes: strictCodes(b0) });
      continue;
    }
    paired.push(c);
    const failing = k.filter((r) => strictCodes(r).length > 0);
    const first = failing[0];
    if (!first) continue;
    strict.push({
      id: c.id,
      codes: strictCodes(first),
      candidate_failures: failing.length,
      runs: k.length,
      confirmed: failing.length === k.length && baseState === "pass",
      answer: describeAnswer(
        firstFailing(first, (a) => a.results.some((r) => r.tier === "strict" && !r.pass)),
      ),
    });
  }
  return { paired, preExisting, strict, raw };
}

/** The failing side's codes and answers of a flipped case. */
function flipOf(
  kind: string,
  id: string,
  bRuns: CaseRun[],
  cRuns: CaseRun[],
  direction: "b" | "c",
) {
  const failedKind = (a: CaseRun["attempts"][number]) =>
    a.results.some((r) => r.kind === kind && !r.pass);
  const was = describeAnswer(firstFailing(bRuns[0], failedKind));
  const now = describeAnswer(firstFailing(cRuns[0], failedKind));
  const failing = direction === "b" ? cRuns[0] : bRuns[0];
  return {
    id,
    direction,
    codes: (failing && kindPasses(failing).get(kind)?.codes) ?? [],
    diff: `baseline ${was} → candidate ${now}`,
    answer: direction === "b" ? now : was,
  };
}

/** One check kind over the paired cases: b, c (consistent flips only), the test and the flips. */
function compareKind(
  kind: string,
  cases: QualityCase[],
  base: Runs,
  cand: Runs,
  rule: QualityRule,
  confirmedIds: Set<string>,
): KindComparison {
  let bPass = 0;
  let cPass = 0;
  const flipped: KindComparison["flipped"] = [];
  const flaky: string[] = [];
  for (const c of cases) {
    const [bRuns, cRuns] = [base.get(c.id) ?? [], cand.get(c.id) ?? []];
    const [bs, cs] = [kindState(bRuns, kind), kindState(cRuns, kind)];
    const [b0, c0] = [bRuns[0], cRuns[0]];
    if (b0 && (kindPasses(b0).get(kind)?.pass ?? true)) bPass++;
    if (c0 && (kindPasses(c0).get(kind)?.pass ?? true)) cPass++;
    if (bs === cs) continue;
    if (bs === "flaky" || cs === "flaky") flaky.push(c.id);
    else flipped.push(flipOf(kind, c.id, bRuns, cRuns, bs === "pass" ? "b" : "c"));
  }
  const b = flipped.filter((f) => f.direction === "b").length;
  const cc = flipped.length - b;
  const n = cases.length;
  // The row is decided on its own new failures: the confirmed strict cases among them fail the
  // gate once, as strict — counted in b (the table adds up), not a second time here.
  const own = flipped.filter((f) => f.direction === "b" && !confirmedIds.has(f.id)).length;
  const fail = kindFails({ n, b: own, c: cc }, rule);
  const counted = !fail && own < b;
  return {
    kind,
    n,
    baseline_rate: n > 0 ? bPass / n : 1,
    candidate_rate: n > 0 ? cPass / n : 1,
    b,
    c: cc,
    p: mcnemarOneSided(b, cc),
    decision: fail ? "fail" : counted ? "counted" : "pass",
    flipped,
    flaky,
  };
}

/** Exact agreement of the first answers, where a case asks for it; gated where it says so. */
function compareAgreement(
  paired: QualityCase[],
  base: Runs,
  cand: Runs,
): QualityReport["agreement"] {
  const agreement: QualityReport["agreement"] = { n: 0, agreed: 0, gated: false, differing: [] };
  for (const c of paired) {
    const check = c.expect.find((e) => e.kind === "agreement");
    if (!check) continue;
    const a = base.get(c.id)?.[0]?.attempts[0]?.answer;
    const b = cand.get(c.id)?.[0]?.attempts[0]?.answer;
    if (!a || !b) continue;
    agreement.n++;
    if (agree(check.mode ?? "exact", a, b)) agreement.agreed++;
    else {
      agreement.differing.push(c.id);
      if (check.gate) agreement.gated = true;
    }
  }
  return agreement;
}

/** Why the quality verdict fails: confirmed strict failures, failing kinds, gated disagreements. */
function findings(report: Omit<QualityReport, "verdict" | "reasons">, paired: QualityCase[]) {
  const reasons: QualityFinding[] = [];
  const confirmed = report.strict.filter((x) => x.confirmed);
  if (confirmed.length > 0) {
    reasons.push({
      check: "strict",
      cases: confirmed.map((x) => x.id),
      message: `strict checks: ${confirmed.length} case${confirmed.length > 1 ? "s the baseline passes fail" : " the baseline passes fails"} on the candidate, confirmed by re-runs: ${confirmed.map((x) => `${x.id} [${x.codes.join(", ")}]`).join("; ")}`,
    });
  }
  const counted = new Set(confirmed.map((x) => x.id));
  for (const k of report.kinds.filter((x) => x.decision === "fail")) {
    // Its own new failures: the confirmed strict cases are the reason above, once.
    const newly = k.flipped.filter((f) => f.direction === "b" && !counted.has(f.id));
    const also = k.b - newly.length;
    reasons.push({
      check: k.kind,
      cases: newly.map((f) => f.id),
      message: `${k.kind}: ${plural(newly.length, "case")} newly ${newly.length === 1 ? "fails" : "fail"}${also > 0 ? ` (and ${also} of the strict cases above)` : ""}, ${k.c} newly ${k.c === 1 ? "passes" : "pass"} of ${k.n} (p = ${k.p.toPrecision(2)}): ${newly
        .map((f) => `${f.id} [${f.codes.join(", ")}]`)
        .join("; ")}`,
    });
  }
  const gated = paired.filter(
    (c) =>
      c.expect.some((e) => e.kind === "agreement" && e.gate) &&
      report.agreement.differing.includes(c.id),
  );
  if (gated.length > 0) {
    const ids = gated.map((c) => c.id);
    reasons.push({
      check: "agreement",
      cases: ids,
      message: `agreement (gated): ${ids.join(", ")} differ from the baseline`,
    });
  }
  return reasons;
}

/** Each arm's re-runs of the cases that differed in the first run, by case. */
export interface QualityReruns {
  baseline: Map<string, CaseRun[]>;
  candidate: Map<string, CaseRun[]>;
}

export function compareQuality(
  suite: Suite,
  baseline: CaseRun[],
  candidate: CaseRun[],
  reruns: QualityReruns,
  rule: QualityRule,
): QualityReport {
  const runsOf = (first: CaseRun[], again: Map<string, CaseRun[]>): Runs =>
    new Map(first.map((r) => [r.id, [r, ...(again.get(r.id) ?? [])]]));
  const base = runsOf(baseline, reruns.baseline);
  const cand = runsOf(candidate, reruns.candidate);
  const { paired, preExisting, strict, raw } = pairCases(suite, base, cand);
  const confirmedIds = new Set(strict.filter((x) => x.confirmed).map((x) => x.id));
  const kinds = [...new Set(paired.flatMap((c) => c.expect.map((e) => e.kind)))]
    .filter((k) => k !== "agreement")
    .map((kind) => {
      const cases = paired.filter((c) => c.expect.some((e) => e.kind === kind));
      return compareKind(kind, cases, base, cand, rule, confirmedIds);
    });
  const report = {
    suite: suite.name,
    cases: suite.cases.length,
    pre_existing: preExisting,
    strict,
    kinds,
    agreement: compareAgreement(paired, base, cand),
    ...answersSummary(baseline, candidate),
    raw,
  };
  const reasons = findings(report, paired);
  return { ...report, verdict: reasons.length > 0 ? "fail" : "pass", reasons };
}
