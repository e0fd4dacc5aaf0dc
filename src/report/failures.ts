// What happened to users' requests, in words — for the headline, the
// reliability row and the examples.

import { percent } from "../common/format.ts";
import { type Failure, failureWords } from "../common/outcomes.ts";
import type { ReliabilityComparison } from "../compare/reliability.ts";
import type { FailureExample } from "../metrics/recorder.ts";

/** The reliability regression in one clause, naming the class and both arms. */
export function reliabilitySentence(r: ReliabilityComparison): string {
  const worst = r.worst;
  const vs = `vs ${percent(r.baseline.rate)} on the baseline`;
  if (!worst) return `the candidate failed ${percent(r.candidate.rate)} of requests ${vs}`;
  const alone = Math.abs(worst.candidate_rate - r.candidate.rate) < 1e-12;
  const outcome = worst.outcome as Failure;
  if (alone)
    return `the candidate ${failureWords(outcome, worst.candidate_rate, r.examples[outcome])} ${vs}`;
  return `the candidate failed ${percent(r.candidate.rate)} of requests ${vs}; most ${failureWords(outcome, worst.candidate_rate, r.examples[outcome])}`;
}

/** One example as the comment shows it: status, error type and code, a bounded excerpt. */
export function describeExample(e: FailureExample): string {
  return [
    e.status ? `HTTP ${e.status}` : "",
    e.error_type ? `type ${e.error_type}` : "",
    e.error_code ? `code ${e.error_code}` : "",
    e.detail ?? "",
    e.body ? `body ${e.body.slice(0, 200)}` : "",
  ]
    .filter(Boolean)
    .join(" · ");
}
