// The `rate` setting: one number (requests per second), or a shape — steps
// "10 for 30s" and linear ramps "10 to 20 over 60s", comma-separated — so a
// surge, a step test or a diurnal ramp can be replayed on both arms.

import { rejectValue } from "../common/errors.ts";
import type { RateSegment } from "../workload/shape.ts";
import { parseDurationS, parseNumber } from "./values.ts";

/** The client holds about 3,000 req/s on 2 cores (bench/README.md): far beyond that nothing it measures means anything. */
export const MAX_RATE_PER_S = 10_000;
/** A shape's parts at most: a longer one is a trace (the trace setting). */
export const MAX_SEGMENTS = 1000;

export const RATE_ACCEPTS = `requests per second (> 0, ≤ ${MAX_RATE_PER_S.toLocaleString("en-US")}), or a shape of steps and ramps: "10 for 30s, 15 for 30s, 10 to 20 over 60s"`;

export type RateValue = { ratePerS: number } | { segments: RateSegment[] };

const STEP = /^(\S+)\s+for\s+(\S+)$/i;
const RAMP = /^(\S+)\s+to\s+(\S+)\s+over\s+(\S+)$/i;

/** One part of a shape; its problem named with the whole value. */
function parseSegment(name: string, raw: string, part: string): RateSegment {
  const rate = (text: string) => parseNumber(name, text, { min: 0, max: MAX_RATE_PER_S });
  const seconds = (text: string) => parseDurationS(name, text, { above: 0, max: 86_400 });
  try {
    const step = part.match(STEP);
    if (step) {
      const perS = rate(step[1] ?? "");
      return { fromPerS: perS, toPerS: perS, durationS: seconds(step[2] ?? "") };
    }
    const ramp = part.match(RAMP);
    if (ramp)
      return {
        fromPerS: rate(ramp[1] ?? ""),
        toPerS: rate(ramp[2] ?? ""),
        durationS: seconds(ramp[3] ?? ""),
      };
  } catch {
    // Named below with the whole value and the part.
  }
  throw rejectValue(
    name,
    raw,
    `${RATE_ACCEPTS}; the part ${JSON.stringify(part.slice(0, 80))} is neither "RATE for DURATION" nor "RATE to RATE over DURATION" with rates in [0, ${MAX_RATE_PER_S}] req/s and durations in (0, 24h]`,
  );
}

/** A flat rate or a shape, from the setting's text. */
export function parseRate(name: string, raw: string): RateValue {
  const text = raw.trim();
  if (!/\s(for|to)\s/i.test(text) && !text.includes(",")) {
    try {
      return { ratePerS: parseNumber(name, text, { above: 0, max: MAX_RATE_PER_S }) };
    } catch {
      throw rejectValue(name, raw, RATE_ACCEPTS);
    }
  }
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length > MAX_SEGMENTS)
    throw rejectValue(
      name,
      `${parts.length} parts`,
      `at most ${MAX_SEGMENTS} steps and ramps (replay a longer shape as a trace)`,
    );
  const segments = parts.map((p) => parseSegment(name, raw, p));
  if (segments.every((g) => g.fromPerS === 0 && g.toPerS === 0))
    throw rejectValue(name, raw, `${RATE_ACCEPTS}, not 0 throughout`);
  return { segments };
}
