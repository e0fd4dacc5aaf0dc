// SLOs for goodput in vLLM's syntax: "ttft:800 tpot:50 e2el:2000" (ms).

import type { Slo } from "../metrics/recorder.ts";
import { ConfigError, rejectValue } from "./errors.ts";

const KEYS = { ttft: "ttftMs", tpot: "tpotMs", e2el: "e2elMs" } as const;

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
    if (!(key in KEYS)) {
      throw new ConfigError(
        `${name}: unknown SLO key "${key}" in ${JSON.stringify(raw)}; accepted keys: ttft, tpot, e2el`,
      );
    }
    const ms = Number(m[2]);
    if (!(m[2] !== "" && Number.isFinite(ms) && ms > 0)) {
      throw rejectValue(`${name} ${key}`, m[2], "a number of milliseconds > 0");
    }
    const field = KEYS[key as keyof typeof KEYS];
    if (slo[field] !== undefined)
      throw new ConfigError(`${name}: "${key}" is given twice in ${JSON.stringify(raw)}`);
    slo[field] = ms;
  }
  return slo;
}

export function formatSlo(slo: Slo): string {
  const parts = Object.entries(KEYS)
    .filter(([, field]) => slo[field] !== undefined)
    .map(([key, field]) => `${key}:${slo[field]}`);
  return parts.length > 0 ? parts.join(" ") : "none";
}
