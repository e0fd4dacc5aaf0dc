// How many requests a server runs at once, where it says so: llama.cpp's
// /props (total_slots), SGLang's /get_server_info (max_running_requests),
// TGI's /info (max_concurrent_requests). vLLM's max_num_seqs is a launch flag
// it publishes nowhere a client reads: no answer there. Each page is read
// under a deadline and a byte cap; any failure is "not said".

import { request } from "undici";
import { readCappedBody } from "../common/body.ts";

const PROBE_TIMEOUT_MS = 3000;
const MAX_BODY_BYTES = 256 * 1024;

/** Where each runtime says it, and the field. */
const SAID: readonly [path: string, field: string][] = [
  ["/props", "total_slots"],
  ["/get_server_info", "max_running_requests"],
  ["/info", "max_concurrent_requests"],
];

/** GETs a page's JSON, or undefined (tests: a stand-in). */
export type GetJson = (url: string, headers: Record<string, string>) => Promise<unknown>;

export const getJson: GetJson = async (url, headers) => {
  try {
    const res = await request(url, {
      headers,
      headersTimeout: PROBE_TIMEOUT_MS,
      bodyTimeout: PROBE_TIMEOUT_MS,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return undefined;
    }
    const body = await readCappedBody(res.body, MAX_BODY_BYTES, PROBE_TIMEOUT_MS);
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
};

/** The server's concurrent requests and the page that said it; null: not said. */
export async function serverSlots(
  origin: string,
  headers: Record<string, string>,
  get: GetJson = getJson,
): Promise<{ slots: number; source: string } | null> {
  for (const [path, field] of SAID) {
    const body = await get(`${origin}${path}`, headers);
    const v = typeof body === "object" && body !== null ? Reflect.get(body, field) : undefined;
    if (typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 1_000_000)
      return { slots: v, source: `${path} ${field}` };
  }
  return null;
}
