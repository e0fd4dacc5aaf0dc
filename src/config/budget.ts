// Absolute budgets on the candidate, in the SLO syntax: "ttft:800 itl:50
// errors:0.1% goodput:9.5" — ms at the gate's percentile, a failure rate,
// requests per second.

import { InputError, rejectValue } from "../common/errors.ts";
import { BUDGET_IDS, type Budgets } from "../compare/budgets.ts";
import { parseFraction } from "./values.ts";

const ACCEPTED =
  'space-separated key:value pairs such as "ttft:800 itl:50 errors:0.1% goodput:9.5"';

export function parseBudgets(name: string, raw: string): Budgets {
  const budgets: Budgets = {};
  if (raw.trim() === "none") return budgets;
  for (const part of raw
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean)) {
    const m = part.match(/^([a-z0-9_]+):(.*)$/i);
    if (!m) throw rejectValue(name, raw, ACCEPTED);
    const key = (m[1] as string).toLowerCase();
    const id = BUDGET_IDS.find((k) => k === key);
    if (id === undefined) {
      throw new InputError(
        `${name}: unknown budget "${key.slice(0, 40)}"; accepted: ${BUDGET_IDS.join(", ")}`,
      );
    }
    if (budgets[id] !== undefined) throw new InputError(`${name}: "${key}" is given twice`);
    const text = m[2] ?? "";
    if (id === "errors") {
      budgets[id] = parseFraction(`${name} errors`, text, 1, true);
      continue;
    }
    const value = Number(text);
    if (!(text !== "" && Number.isFinite(value) && value > 0 && value <= 1e9)) {
      const what =
        id === "goodput" ? "requests per second, > 0" : "milliseconds, > 0 and at most 1e9";
      throw rejectValue(`${name} ${key}`, text, what);
    }
    budgets[id] = value;
  }
  return budgets;
}
