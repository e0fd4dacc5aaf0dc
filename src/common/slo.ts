// Service-level objectives for goodput, in vLLM's syntax ("ttft:800 tpot:50",
// ms). Parsed once into numbers; reports keep the numbers (`ttft_ms: 800`)
// and write the syntax only to show it.

export interface Slo {
  ttftMs?: number;
  tpotMs?: number;
  /** The request's mean gap between output chunks (its ITL, as GuideLLM counts it per request). */
  itlMs?: number;
  e2elMs?: number;
}

const SLO_KEYS = { ttft: "ttftMs", tpot: "tpotMs", itl: "itlMs", e2el: "e2elMs" } as const;
export type SloName = keyof typeof SLO_KEYS;
export const SLO_NAMES: readonly SloName[] = ["ttft", "tpot", "itl", "e2el"];
export const sloField = (name: SloName): keyof Slo => SLO_KEYS[name];

/** The SLO as reports record it: `{ ttft_ms: 800, tpot_ms: 50 }` (only the bounds set). */
export type SloRecord = Partial<Record<`${SloName}_ms`, number>>;

export function sloRecord(slo: Slo): SloRecord {
  const record: SloRecord = {};
  for (const name of SLO_NAMES) {
    const ms = slo[SLO_KEYS[name]];
    if (ms !== undefined) record[`${name}_ms`] = ms;
  }
  return record;
}

/** vLLM's syntax: "ttft:800 tpot:50", or "none". */
export function formatSlo(slo: SloRecord): string {
  const parts = SLO_NAMES.flatMap((k) => {
    const ms = slo[`${k}_ms`];
    return ms === undefined ? [] : [`${k}:${ms}`];
  });
  return parts.length > 0 ? parts.join(" ") : "none";
}
