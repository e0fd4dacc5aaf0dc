// The Prometheus text exposition format (0.0.4) and OpenMetrics 1.0 text, read
// into metric families. Written here rather than taken from npm: the one parser
// there (parse-prometheus-text-format 1.1.1) merges a histogram's label sets
// into one and drops their _count and _sum, and every serving runtime labels
// its histograms (vLLM: model_name, engine). A line that does not parse is
// counted and skipped: a scrape never fails the gate.

import { at } from "../common/arrays.ts";
export type FamilyType =
  | "counter"
  | "gauge"
  | "histogram"
  | "gaugehistogram"
  | "summary"
  | "info"
  | "stateset"
  | "untyped";

export interface Sample {
  /** The sample's own name: a histogram's `x_bucket`, `x_sum`, `x_count`; a counter's `x_total`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: FamilyType;
  help: string;
  samples: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  /** Lines that did not parse: how many, and the first few (numbered) to show. */
  badLines: number;
  firstBad: string[];
}

const TYPES = new Set<string>([
  "counter",
  "gauge",
  "histogram",
  "gaugehistogram",
  "summary",
  "info",
  "stateset",
  "untyped",
  "unknown",
]);

/** The sample names a family of each type owns, beside its own name. */
const SUFFIXES: Record<string, readonly string[]> = {
  counter: ["_total", "_created"],
  histogram: ["_bucket", "_sum", "_count", "_created"],
  gaugehistogram: ["_bucket", "_gsum", "_gcount"],
  summary: ["_sum", "_count", "_created"],
  info: ["_info"],
};

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const MAX_BAD_SHOWN = 3;

/** Reads a page's lines one at a time; `keep` skips unwanted samples before their labels are read. */
class Reader {
  readonly out: Exposition = { families: new Map(), badLines: 0, firstBad: [] };
  // Sample name → its family, found once per name (a page repeats each name per label set).
  private readonly owners = new Map<string, Family>();
  private readonly keep: ((sampleName: string) => boolean) | undefined;
  private lineNo = 0;

  constructor(keep?: (sampleName: string) => boolean) {
    this.keep = keep;
  }

  line(raw: string): void {
    this.lineNo++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.length === 0 || line.trim() === "") return;
    let ok: boolean;
    if (line.startsWith("#")) {
      ok = comment(line, this.familyOf);
      this.owners.clear();
    } else ok = sample(line, this.owner, this.keep);
    if (!ok) {
      this.out.badLines++;
      if (this.out.firstBad.length < MAX_BAD_SHOWN)
        this.out.firstBad.push(`line ${this.lineNo}: ${line.slice(0, 120)}`);
    }
  }

  private readonly familyOf = (name: string): Family => {
    let f = this.out.families.get(name);
    if (!f) {
      f = { name, type: "untyped", help: "", samples: [] };
      this.out.families.set(name, f);
    }
    return f;
  };

  private readonly owner = (sample: string): Family => {
    let f = this.owners.get(sample);
    if (!f) {
      const families = this.out.families;
      f = families.get(sample) ?? declaredOwner(families, sample) ?? this.familyOf(sample);
      this.owners.set(sample, f);
    }
    return f;
  };
}

/** Reads a metrics page; `keep`, when given, names the samples wanted. */
export function parseExposition(text: string, keep?: (sampleName: string) => boolean): Exposition {
  const reader = new Reader(keep);
  for (const line of text.split("\n")) reader.line(line);
  return reader.out;
}

/**
 * The same, a slice of lines at a time with the event loop free in between:
 * a scrape during a trial must not hold up a scheduled send for the whole page.
 */
export async function parseExpositionSliced(
  text: string,
  keep?: (sampleName: string) => boolean,
  linesPerSlice = 64,
): Promise<Exposition> {
  const reader = new Reader(keep);
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (i > 0 && i % linesPerSlice === 0) await new Promise((resolve) => setImmediate(resolve));
    reader.line(at(lines, i));
  }
  return reader.out;
}

/** The declared family of the type whose suffix the sample name carries. */
function declaredOwner(families: Map<string, Family>, sample: string): Family | undefined {
  for (const [type, suffixes] of Object.entries(SUFFIXES)) {
    for (const suffix of suffixes) {
      if (!sample.endsWith(suffix)) continue;
      const f = families.get(sample.slice(0, -suffix.length));
      if (f?.type === type) return f;
    }
  }
  return undefined;
}

/** `# HELP name text`, `# TYPE name type`, `# UNIT name unit`, `# EOF`; any other comment is ignored. */
function comment(line: string, familyOf: (name: string) => Family): boolean {
  const m = /^#\s+(HELP|TYPE|UNIT)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\s+(.*))?$/.exec(line);
  if (!m) return true;
  const [, keyword, name, rest = ""] = m;
  const family = familyOf(name as string);
  if (keyword === "HELP") family.help = unescapeHelp(rest);
  if (keyword === "TYPE") {
    const type = rest.trim().toLowerCase();
    if (!TYPES.has(type)) return false;
    family.type = type === "unknown" ? "untyped" : (type as FamilyType);
  }
  return true;
}

// The value as [^"\\]*(?:\\.[^"\\]*)*, not (?:[^"\\]|\\.)*: one step per run, not per character.
const LABEL = /\s*,?\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"([^"\\]*(?:\\.[^"\\]*)*)"/y;
const LABELS_END = /\s*,?\s*\}/y;

/** `name{label="value",…} value [timestamp] [# exemplar]`. */
function sample(
  line: string,
  owner: (sample: string) => Family,
  keep: ((sampleName: string) => boolean) | undefined,
): boolean {
  const name = NAME.exec(line)?.[0];
  if (!name) return false;
  if (keep && !keep(name)) return true;
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === "{") {
    at++;
    for (;;) {
      LABELS_END.lastIndex = at;
      if (LABELS_END.test(line)) {
        at = LABELS_END.lastIndex;
        break;
      }
      LABEL.lastIndex = at;
      const m = LABEL.exec(line);
      if (!m) return false;
      const v = m[2] ?? "";
      labels[m[1] ?? ""] = v.includes("\\") ? unescapeLabel(v) : v;
      at = LABEL.lastIndex;
    }
  }
  // The value, then an optional timestamp; an OpenMetrics exemplar follows " # ".
  const hash = line.indexOf(" # ", at);
  const end = hash < 0 ? line.length : hash;
  while (line[at] === " " || line[at] === "\t") at++;
  let stop = at;
  while (stop < end && line[stop] !== " " && line[stop] !== "\t") stop++;
  const rest = line.slice(stop, end).trim();
  if (rest !== "" && !/^-?\d+(\.\d+)?$/.test(rest)) return false;
  const value = parseValue(line.slice(at, stop));
  if (value === undefined) return false;
  owner(name).samples.push({ name, labels, value });
  return true;
}

/** A label value's escapes: `\\`, `\"`, `\n`. */
function unescapeLabel(v: string): string {
  return v.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
}

function parseValue(text: string): number | undefined {
  const v = Number(text);
  if (Number.isFinite(v) && text !== "") return v;
  if (/^[+]?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  return undefined;
}

/** HELP text escapes `\\` and `\n`. */
function unescapeHelp(text: string): string {
  return text.replace(/\\([n\\])/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}
