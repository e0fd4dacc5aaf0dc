// An accuracy item: a prompt with one exact answer and how an answer is
// matched against it. The built-in suite and a user's JSONL both become these.

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** How a model's answer is matched against the item's answer. */
export type Match =
  /** The final answer, normalized (case, spaces, markup, a trailing period), equals the answer. */
  | { kind: "exact" }
  /** The final answer's last number is within `tolerance` (absolute) of the answer. */
  | { kind: "numeric"; tolerance: number }
  /** The chosen letter (A, B, …) is the answer; `choices` are the options' texts, when known. */
  | { kind: "choice"; choices: string[] }
  /** The final answer (else the whole text) matches the pattern (RE2, case-insensitive). */
  | { kind: "regex" }
  /** The first JSON object in the text has the answer's value at each of its paths ($.a.b[0]). */
  | { kind: "json_path" };

export type MatchKind = Match["kind"];
export const MATCH_KINDS: readonly MatchKind[] = [
  "exact",
  "numeric",
  "choice",
  "regex",
  "json_path",
];

export interface AccuracyItem {
  /** Stable across runs and releases: pairs the arms' answers. */
  id: string;
  /** The task family the item belongs to (its own table row). */
  family: string;
  messages: ChatMessage[];
  /**
   * exact: the text; numeric: the number; choice: the letter; regex: the
   * pattern; json_path: an object of path → value.
   */
  answer: string | number | Record<string, unknown>;
  match: Match;
  maxTokens: number;
}

export interface AccuracySuite {
  /** "builtin@1", or the file it came from. */
  name: string;
  items: AccuracyItem[];
}

/** Letters of a choice item's options, in order. */
export const CHOICE_LETTERS = "ABCDEFGHIJ";
