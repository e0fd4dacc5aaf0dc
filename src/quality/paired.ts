// Baseline versus candidate on a quality suite, paired per case.
// - Pre-existing: cases whose contract checks the baseline already fails are
//   listed and excluded (a server without tools fails those on both arms).
// - Contract: a case the baseline passes and the candidate fails is re-run;
//   a failure in the majority of the candidate's runs is confirmed and fails
//   the gate (with 50–200 cases a McNemar test cannot see a few new failures).
// - Quality, per check kind: b = baseline pass / candidate fail, c = the
//   reverse; fail when the exact one-sided McNemar p ≤ α and (b − c)/n ≥ the
//   effect floor, or (b − c)/n ≥ the large-effect floor whatever the test says
//   (and b − c > 1: one flipped case is not a large effect). A kind whose only
//   new failures are confirmed contract failures is "counted": the case fails
//   the gate once, as contract.

import { plural } from "../common/format.ts";
import type { Answer } from "./answer.ts";
import { deepEqual, normalizeText } from "./checks.ts";
import type { CaseRun } from "./run.ts";
import type { QualityCase, Suite } from "./suite.ts";

export interface QualityRule {
  alpha: number;
  /** (b − c)/n needed with a significant test. */
  minEffect: number;
  /** (b − c)/n that fails whatever the test says (tiny suites). */
  largeEffect: number;
  /** Re-runs of a newly failing contract case. */
  confirmReruns: number;
}

export interface QualityFinding {
  /** "contract", a check kind, or "agreement". */
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
  /** "counted": it would fail, but only through cases already failing as contract. */
  decision: "pass" | "fail" | "counted";
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
  contract: {
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

/** P(X ≥ b) for X ~ Binomial(b + c, 1/2): the exact one-sided McNemar test. */
export function mcnemarOneSided(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let p = 0;
  let coef = 1; // C(n, 0)
  for (let k = 0; k <= n; k++) {
    if (k >= b) p += coef;
    coef = (coef * (n - k)) / (k + 1);
  }
  return Math.min(1, p / 2 ** n);
}

/** A check kind newly failing on the candidate: significant and material, or large. */
export function kindFails(k: Pick<KindComparison, "n" | "b" | "c">, rule: QualityRule): boolean {
  const effect = k.n > 0 ? (k.b - k.c) / k.n : 0;
  const p = mcnemarOneSided(k.b, k.c);
  return (
    (p <= rule.alpha && effect >= rule.minEffect) || (effect >= rule.largeEffect && k.b - k.c > 1)
  );
}

/** The quality verdict from a report's counts and confirmed contract failures (not its own verdict). */
export function qualityVerdictOf(q: QualityReport, rule: QualityRule): "pass" | "fail" {
  const gatedDisagreement = q.agreement.gated && q.agreement.differing.length > 0;
  const kindFailed = q.kinds.some((k) => kindFails(k, rule));
  return kindFailed || gatedDisagreement || q.contract.some((c) => c.confirmed) ? "fail" : "pass";
}

function contractCodes(run: CaseRun): string[] {
  return [
    ...new Set(
      run.attempts.flatMap((a) =>
        a.results.filter((r) => r.tier === "contract" && !r.pass).flatMap((r) => r.codes),
      ),
    ),
  ];
}

function kindPasses(run: CaseRun): Map<string, { pass: boolean; codes: string[] }> {
  const out = new Map<string, { pass: boolean; codes: string[] }>();
  for (const attempt of run.attempts) {
    for (const r of attempt.results) {
      if (r.tier === "contract") continue;
      const prev = out.get(r.kind) ?? { pass: true, codes: [] };
      out.set(r.kind, {
        pass: prev.pass && r.pass,
        codes: [...new Set([...prev.codes, ...r.codes])],
      });
    }
  }
  return out;
}

function histogram(values: string[]): Record<string, number> {
  const h: Record<string, number> = {};
  for (const v of values) h[v] = (h[v] ?? 0) + 1;
  return h;
}

function agree(mode: string, a: Answer, b: Answer): boolean {
  switch (mode) {
    case "normalized":
      return normalizeText(a.content) === normalizeText(b.content);
    case "json": {
      try {
        return deepEqual(JSON.parse(a.content), JSON.parse(b.content));
      } catch {
        return false;
      }
    }
    case "tool_calls": {
      const key = (x: Answer) =>
        x.toolCalls
          .map((t) => `${t.name}:${t.arguments}`)
          .sort()
          .join("|");
      return key(a) === key(b);
    }
    default:
      return a.content === b.content;
  }
}

const excerpt = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** What a server returned, briefly: an HTTP error with its body, else the content or tool calls. */
export function describeAnswer(a: Answer | undefined): string {
  if (!a) return "no answer";
  if (a.status < 200 || a.status >= 300)
    return a.status === 0
      ? "no response (connection failed)"
      : `HTTP ${a.status} ${JSON.stringify(excerpt(a.raw.trim()))}`;
  if (a.content) return JSON.stringify(excerpt(a.content));
  if (a.toolCalls.length > 0)
    return excerpt(a.toolCalls.map((t) => `${t.name}(${t.arguments})`).join(", "));
  return `empty answer (finish_reason ${a.finishReason ?? "none"})`;
}

const firstFailing = (
  run: CaseRun | undefined,
  failed: (a: CaseRun["attempts"][number]) => boolean,
) => (run?.attempts.find(failed) ?? run?.attempts[0])?.answer;

/** Each arm's answers at a glance: finish reasons, tool-call codes, reconnects, irregular deltas. */
function answersSummary(baseline: CaseRun[], candidate: CaseRun[]) {
  const all = (runs: CaseRun[]) => runs.flatMap((r) => r.attempts);
  const finishReasons = (runs: CaseRun[]) =>
    histogram(all(runs).map((a) => a.answer.finishReason ?? "none"));
  const toolCodes = (runs: CaseRun[]) =>
    histogram(
      all(runs).flatMap((a) =>
        a.results.flatMap((r) => r.codes.filter((c) => c.startsWith("tool."))),
      ),
    );
  const reconnects = (runs: CaseRun[]) => all(runs).reduce((n, a) => n + a.answer.reconnects, 0);
  const irregular = (runs: CaseRun[]) => [...new Set(all(runs).flatMap((a) => a.answer.irregular))];
  return {
    finish_reasons: { baseline: finishReasons(baseline), candidate: finishReasons(candidate) },
    tool_codes: { baseline: toolCodes(baseline), candidate: toolCodes(candidate) },
    irregular_deltas: { baseline: irregular(baseline), candidate: irregular(candidate) },
    reconnects: { baseline: reconnects(baseline), candidate: reconnects(candidate) },
  };
}

type Runs = Map<string, CaseRun>;

/**
 * The cases both arms answered: those the baseline already fails on a
 * contract check are pre-existing (excluded); of the rest, those the
 * candidate fails on one are contract suspects, confirmed by their re-runs.
 */
function pairCases(suite: Suite, base: Runs, cand: Runs, reruns: Map<string, CaseRun[]>) {
  const paired: QualityCase[] = [];
  const preExisting: QualityReport["pre_existing"] = [];
  const contract: QualityReport["contract"] = [];
  const raw: QualityReport["raw"] = [];
  for (const c of suite.cases) {
    const b = base.get(c.id);
    const k = cand.get(c.id);
    if (!b || !k) continue;
    raw.push({
      id: c.id,
      baseline: b.attempts.map((a) => a.answer.raw),
      candidate: k.attempts.map((a) => a.answer.raw),
    });
    const baseCodes = contractCodes(b);
    if (baseCodes.length > 0) {
      preExisting.push({ id: c.id, codes: baseCodes });
      continue;
    }
    paired.push(c);
    const candCodes = contractCodes(k);
    if (candCodes.length === 0) continue;
    const again = reruns.get(c.id) ?? [];
    const failures = 1 + again.filter((r) => contractCodes(r).length > 0).length;
    const runs = 1 + again.length;
    contract.push({
      id: c.id,
      codes: candCodes,
      candidate_failures: failures,
      runs,
      confirmed: failures * 2 > runs,
      answer: describeAnswer(
        firstFailing(k, (a) => a.results.some((r) => r.tier === "contract" && !r.pass)),
      ),
    });
  }
  return { paired, preExisting, contract, raw };
}

/** One check kind over the paired cases: b, c, the test and the flipped cases. */
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
  const none = { pass: true, codes: [] as string[] };
  for (const c of cases) {
    const [bRun, cRun] = [base.get(c.id), cand.get(c.id)];
    const bk = (bRun && kindPasses(bRun).get(kind)) ?? none;
    const ck = (cRun && kindPasses(cRun).get(kind)) ?? none;
    if (bk.pass) bPass++;
    if (ck.pass) cPass++;
    if (bk.pass === ck.pass) continue;
    const failedKind = (a: CaseRun["attempts"][number]) =>
      a.results.some((r) => r.kind === kind && !r.pass);
    const was = describeAnswer(firstFailing(bRun, failedKind));
    const now = describeAnswer(firstFailing(cRun, failedKind));
    flipped.push({
      id: c.id,
      direction: bk.pass ? "b" : "c",
      codes: bk.pass ? ck.codes : bk.codes,
      diff: `baseline ${was} → candidate ${now}`,
      answer: bk.pass ? now : was,
    });
  }
  const b = flipped.filter((f) => f.direction === "b").length;
  const cc = flipped.length - b;
  const n = cases.length;
  const fail = kindFails({ n, b, c: cc }, rule);
  const counted = fail && flipped.every((f) => f.direction !== "b" || confirmedIds.has(f.id));
  return {
    kind,
    n,
    baseline_rate: n > 0 ? bPass / n : 1,
    candidate_rate: n > 0 ? cPass / n : 1,
    b,
    c: cc,
    p: mcnemarOneSided(b, cc),
    decision: counted ? "counted" : fail ? "fail" : "pass",
    flipped,
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
    const a = base.get(c.id)?.attempts[0]?.answer;
    const b = cand.get(c.id)?.attempts[0]?.answer;
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

/** Why the quality verdict fails: confirmed contract failures, failing kinds, gated disagreements. */
function findings(report: Omit<QualityReport, "verdict" | "reasons">, paired: QualityCase[]) {
  const reasons: QualityFinding[] = [];
  const confirmed = report.contract.filter((x) => x.confirmed);
  if (confirmed.length > 0) {
    reasons.push({
      check: "contract",
      cases: confirmed.map((x) => x.id),
      message: `contract: ${confirmed.length} case${confirmed.length > 1 ? "s the baseline passes fail" : " the baseline passes fails"} on the candidate, confirmed by re-runs: ${confirmed.map((x) => `${x.id} [${x.codes.join(", ")}]`).join("; ")}`,
    });
  }
  for (const k of report.kinds.filter((x) => x.decision === "fail")) {
    const newly = k.flipped.filter((f) => f.direction === "b");
    reasons.push({
      check: k.kind,
      cases: newly.map((f) => f.id),
      message: `${k.kind}: ${plural(k.b, "case")} newly ${k.b === 1 ? "fails" : "fail"}, ${k.c} newly ${k.c === 1 ? "passes" : "pass"} of ${k.n} (p = ${k.p.toPrecision(2)}): ${newly
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

export function compareQuality(
  suite: Suite,
  baseline: CaseRun[],
  candidate: CaseRun[],
  reruns: Map<string, CaseRun[]>,
  rule: QualityRule,
): QualityReport {
  const byId = (runs: CaseRun[]): Runs => new Map(runs.map((r) => [r.id, r]));
  const base = byId(baseline);
  const cand = byId(candidate);
  const { paired, preExisting, contract, raw } = pairCases(suite, base, cand, reruns);
  const confirmedIds = new Set(contract.filter((x) => x.confirmed).map((x) => x.id));
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
    contract,
    kinds,
    agreement: compareAgreement(paired, base, cand),
    ...answersSummary(baseline, candidate),
    raw,
  };
  const reasons = findings(report, paired);
  return { ...report, verdict: reasons.length > 0 ? "fail" : "pass", reasons };
}
