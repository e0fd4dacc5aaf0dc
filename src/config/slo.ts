// SLOs for goodput in vLLM's syntax: "ttft:800 tpot:50 e2el:2000" (ms), and
// itl (a request's mean gap between output chunks).

import { InputError, rejectValue } from "../common/errors.ts";
import { SLO_NAMES, type Slo, sloField } from "../common/slo.ts";

export function parseSlo(name: string, raw: string): Slo {
  const slo: Slo = {};
  for (const part of raw
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean)) {
    const m = part.match(/^([a-z0-9_]+):(.*)$/i);
    if (!m)
      throw rejectValue(
        name,
        raw,
        'space-separated key:milliseconds pairs such as "ttft:800 tpot:50"',
      );
    const key = (m[1] as string).toLowerCase();
    const sloName = SLO_NAMES.find((k) => k === key);
    if (sloName === undefined) {
      throw new InputError(
        `${name}: unknown SLO key "${key}" in ${JSON.stringify(raw)}; accepted keys: ${SLO_NAMES.join(", ")}`,
      );
    }
    const ms = Number(m[2]);
    if (!(m[2] !== "" && Number.isFinite(ms) && ms > 0)) {
      throw rejectValue(`${name} ${key}`, m[2], "a number of milliseconds > 0");
    }
    const field = sloField(sloName);
    if (slo[field] !== undefined)
      throw new InputError(`${name}: "${key}" is given twice in ${JSON.stringify(raw)}`);
    slo[field] = ms;
  }
  return slo;
}
