// What a contract probe records: items, each a promise of the serving contract
// that holds or breaks (or a behaviour with nothing promised), what the arm
// did in a few words (compared between the arms) and its evidence (shown,
// never compared). Pure readers of an Exchange.

import type { Exchange } from "./exchange.ts";

export interface ContractItem {
  /** e.g. "stream.role_chunk": the probe, then what is looked at. */
  id: string;
  /** true: the documented promise holds; false: it breaks; null: nothing is promised. */
  holds: boolean | null;
  /** What the arm did, in a few words: a difference between the arms is a change. */
  value: string;
  /** The status and a bounded excerpt of what came back. */
  evidence: string;
}

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export const EVIDENCE_CHARS = 200;

/** An answer's or a chunk's first choice, when it has one. */
export function firstChoice(body: Json | undefined): Json | undefined {
  const choices = body?.choices;
  return Array.isArray(choices) && isObject(choices[0]) ? choices[0] : undefined;
}

/** The finish reasons the API documents. */
export const DOCUMENTED_FINISH = new Set(["stop", "length", "tool_calls", "content_filter"]);

/** A server's word (a finish reason, a header) as a value: plain characters, short. */
export const wireWord = (v: unknown): string =>
  String(v)
    .replace(/[^A-Za-z0-9_./=; -]/g, "?")
    .slice(0, 40);

export function item(id: string, holds: boolean | null, value: string, evidence: string) {
  return { id, holds, value, evidence };
}

/** The status and the body (its start and end when long: a stream's role chunk and its usage), one line. */
export function evidenceOf(ex: Exchange): string {
  if (ex.status === 0) return `no response: ${(ex.error ?? "").slice(0, EVIDENCE_CHARS)}`;
  const body = ex.text.replace(/\s+/g, " ").trim();
  const half = EVIDENCE_CHARS / 2;
  const cut = body.length > EVIDENCE_CHARS ? `${body.slice(0, half)} … ${body.slice(-half)}` : body;
  return `status ${ex.status}${cut ? `: ${cut}` : ""}`;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An error inside a 200 stream: a data event with an `error` object, an `event: error`, or an `error:` field. */
export function streamError(ex: Exchange): unknown {
  for (const e of ex.events) {
    if (e.field === "error" || e.event === "error") return parseJson(e.data) ?? e.data;
    const parsed = parseJson(e.data);
    if (isObject(parsed) && parsed.error !== undefined && parsed.error !== null) return parsed;
  }
  return undefined;
}

/** Which of OpenAI's error fields the body has: `{"error": {message, type, param, code}}`. */
export function errorShape(body: unknown): { holds: boolean; value: string } {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error)) return { holds: false, value: "no error object" };
  const present = ["message", "type", "param", "code"].filter((k) => k in error);
  const missing = ["message", "type", "param", "code"].filter((k) => !(k in error));
  const holds = missing.length === 0 && typeof error.message === "string";
  return {
    holds,
    value:
      missing.length === 0
        ? "error{message,type,param,code}"
        : `error{${present.join(",")}} without ${missing.join(", ")}`,
  };
}

/**
 * A request the server must refuse: a 4xx status (a validation error found
 * before streaming is never a 200), and OpenAI's error body.
 */
export function refusalItems(id: string, ex: Exchange): ContractItem[] {
  const evidence = evidenceOf(ex);
  const inStream = ex.status === 200 ? streamError(ex) : undefined;
  const status =
    ex.status === 0
      ? item(`${id}.status`, false, "no response", evidence)
      : ex.status >= 400 && ex.status < 500
        ? item(`${id}.status`, true, `status ${ex.status}`, evidence)
        : inStream !== undefined
          ? item(`${id}.status`, false, "200 with an in-stream error", evidence)
          : item(`${id}.status`, false, `status ${ex.status}`, evidence);
  const body = ex.status >= 400 ? parseJson(ex.text) : inStream;
  if (body === undefined && ex.status < 400)
    return [status, item(`${id}.body`, null, "no error", evidence)];
  const shape = errorShape(body);
  return [status, item(`${id}.body`, shape.holds, shape.value, evidence)];
}
