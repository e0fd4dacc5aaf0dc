// Every output the action sets, with what it holds: action.yml lists them
// from here (scripts/docs.ts), and a test checks that the action sets no other.

const METRIC_OUTPUTS = (["goodput", "ttft", "itl", "tpot", "e2el"] as const).flatMap((id) => {
  const what = id === "goodput" ? "goodput" : `${id.toUpperCase()} at the percentile`;
  const when = id === "tpot" || id === "e2el" ? `, when max-${id}-regression is set` : "";
  return [
    [`${id}-ratio`, `Candidate / baseline ${what}${when} (geometric mean of the pair ratios).`],
    [`${id}-ratio-lower`, `One-sided lower bound of ${id}-ratio at the confidence of a look.`],
    [`${id}-ratio-upper`, `One-sided upper bound of ${id}-ratio at the confidence of a look.`],
    [`${id}-verdict`, `pass | regressed | inconclusive | improved, for ${id}.`],
  ] as const;
});

export const ACTION_OUTPUTS: readonly (readonly [string, string])[] = [
  ["lanes-verdicts", "mode burst: JSON object of lane name → choose | hold | graduate"],
  ["graduate", "mode burst: true when a lane's graduation trigger fired"],
  ["issue-url", "mode burst: the graduation issue, when lanes-issue opened or updated one"],
  ["verdict", "pass | inconclusive | fail | error | cancelled"],
  ["headline", "The verdict in one sentence."],
  ["results-path", "Path of the results JSON."],
  [
    "requests-path",
    "Path of the requests file (one line per measured request), when one was written.",
  ],
  ["comment-url", "URL of the PR comment, when one was posted or updated."],
  ["report-html", "Path of the HTML report, when one was written."],
  ...METRIC_OUTPUTS,
  ["capacity-baseline", "With capacity: the baseline's capacity, requests/s."],
  ["capacity-candidate", "With capacity: the candidate's capacity, requests/s."],
  ["capacity-change", "With capacity: candidate / baseline capacity − 1, e.g. -0.12."],
  ["capacity-verdict", "With capacity: pass | regressed | inconclusive."],
  [
    "reliability-verdict",
    "pass | regressed | inconclusive | improved: the candidate's failure rate against the baseline's.",
  ],
  [
    "failure-rate-baseline",
    "The baseline's failure rate (a fraction; the reliability-exclude classes not counted).",
  ],
  ["failure-rate-candidate", "The candidate's failure rate (a fraction)."],
];
