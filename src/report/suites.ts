// How each side-suite renders: its section under the tables, its collapsible
// details, and its words in the headline when it failed or stayed open. One
// entry per suite (the type asks for every one), in the order they run.

import type { SuiteId } from "../gate/suites.ts";
import type { GateResults } from "../results/model.ts";
import {
  accuracy,
  accuracyDetails,
  accuracyOpenSentence,
  accuracySentence,
} from "./accuracy-markdown.ts";
import { contract, contractDetails, contractSentence } from "./contract-markdown.ts";
import { drain, drainSentence } from "./drain-markdown.ts";
import { judge, judgeDetails, judgeOpenSentence, judgeSentence } from "./judge-markdown.ts";
import { quality, qualityDetails } from "./quality-markdown.ts";
import { qualitySentence } from "./quality-words.ts";
import {
  scaling,
  scalingDetails,
  scalingOpenSentence,
  scalingSentence,
} from "./scaling-markdown.ts";
import { surge, surgeDetails, surgeOpenSentence, surgeSentence } from "./surge-markdown.ts";
import { truncation, truncationSentence } from "./truncation-markdown.ts";

/** The run's fields a suite's words are made from. */
export type SuiteView = Pick<GateResults, SuiteId | `${SuiteId}_skipped`>;

export interface SuiteRender {
  /** The section under the tables (empty: nothing to say). */
  section(r: GateResults): string;
  /** The collapsible details (empty: none). */
  details(r: GateResults): string;
  /** The headline's words for it when it failed (null: it did not). */
  failed(r: SuiteView): string | null;
  /** The headline's words for it when it stayed open (null: it did not). */
  open(r: SuiteView): string | null;
}

export const SUITE_RENDER: { readonly [K in SuiteId]: SuiteRender } = {
  quality: {
    section: quality,
    details: qualityDetails,
    failed: (r) => (r.quality?.verdict === "fail" ? qualitySentence(r.quality) : null),
    open: () => null,
  },
  contract: {
    section: contract,
    details: contractDetails,
    failed: (r) => (r.contract?.verdict === "fail" ? contractSentence(r.contract) : null),
    open: () => null,
  },
  accuracy: {
    section: accuracy,
    details: accuracyDetails,
    failed: (r) => (r.accuracy?.verdict === "fail" ? accuracySentence(r.accuracy) : null),
    open: (r) => (r.accuracy?.verdict === "inconclusive" ? accuracyOpenSentence(r.accuracy) : null),
  },
  judge: {
    section: judge,
    details: judgeDetails,
    failed: (r) => (r.judge?.verdict === "fail" ? judgeSentence(r.judge) : null),
    open: (r) =>
      r.judge?.gated && r.judge.verdict === "inconclusive" ? judgeOpenSentence(r.judge) : null,
  },
  truncation: {
    section: truncation,
    details: () => "",
    failed: (r) => (r.truncation?.verdict === "fail" ? truncationSentence(r.truncation) : null),
    open: (r) =>
      r.truncation?.verdict === "inconclusive"
        ? `the truncation replay: ${r.truncation.reason}`
        : null,
  },
  surge: {
    section: surge,
    details: surgeDetails,
    failed: (r) => (r.surge?.verdict === "fail" ? surgeSentence(r.surge) : null),
    open: (r) => (r.surge?.verdict === "inconclusive" ? surgeOpenSentence(r.surge) : null),
  },
  scaling: {
    section: scaling,
    details: scalingDetails,
    failed: (r) => (r.scaling?.verdict === "fail" ? scalingSentence(r.scaling) : null),
    open: (r) => (r.scaling?.verdict === "inconclusive" ? scalingOpenSentence(r.scaling) : null),
  },
  drain: {
    section: drain,
    details: () => "",
    failed: (r) => (r.drain?.verdict === "fail" ? drainSentence(r.drain) : null),
    open: (r) =>
      r.drain?.verdict === "inconclusive" ? `the drain: ${r.drain.findings.join("; ")}` : null,
  },
};

/** The headline's words of every suite that failed, or (open) of every suite left open. */
export const suiteHeadlines = (r: SuiteView, which: "failed" | "open"): string[] =>
  Object.values(SUITE_RENDER).flatMap((s) => s[which](r) ?? []);
