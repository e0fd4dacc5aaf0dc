// Which runtime answered, where the server says it: SGLang's /get_server_info,
// TGI's /info, llama.cpp's /props, vLLM's /version, then the `server` header
// and the answers' system_fingerprint.

import type { Exchange, ProbeRequest } from "./exchange.ts";
import { isObject, type Json, parseJson } from "./items.ts";

export interface RuntimeId {
  /** vllm, sglang, tgi, llama.cpp, or null when nothing said. */
  name: string | null;
  version: string | null;
  /** The endpoint that said it. */
  source: string | null;
  server_header: string | null;
  system_fingerprint: string | null;
}

/** A server's text as a plain, short word (it is shown in the comment's header). */
const text = (v: unknown, limit = 80): string | null =>
  typeof v === "string" && v !== ""
    ? v.replace(/[^\w .+:/()-]/g, "?").slice(0, limit)
    : typeof v === "number"
      ? String(v)
      : null;

/** Each endpoint in the order asked, and what its answer says (null: not this runtime). */
const ASKED: [string, string, (b: Json) => string | null | undefined][] = [
  ["/get_server_info", "sglang", (b) => ("version" in b ? text(b.version) : undefined)],
  ["/info", "tgi", (b) => ("model_id" in b && "version" in b ? text(b.version) : undefined)],
  [
    "/props",
    "llama.cpp",
    (b) => ("default_generation_settings" in b ? (text(b.build_info) ?? null) : undefined),
  ],
  ["/version", "vllm", (b) => ("version" in b ? text(b.version) : undefined)],
];

export async function identifyRuntime(
  send: (probe: ProbeRequest) => Promise<Exchange>,
  headers: Record<string, string>,
  seen: { serverHeader: string | undefined; fingerprint: unknown },
): Promise<RuntimeId> {
  const id: RuntimeId = {
    name: null,
    version: null,
    source: null,
    server_header: text(seen.serverHeader, 120),
    system_fingerprint: text(seen.fingerprint, 120),
  };
  for (const [path, name, read] of ASKED) {
    const ex = await send({ method: "GET", path, headers });
    const body = ex.status === 200 ? parseJson(ex.text) : undefined;
    const version = isObject(body) ? read(body) : undefined;
    if (version === undefined) continue;
    return { ...id, name, version, source: path };
  }
  return id;
}
