// The requests file of `measure` and `sweep`, when --requests-path asks for
// one: opened before the first request, a line per measured request, closed
// with what it holds said on stderr (stdout is the report).

import type { Redact } from "../common/redact.ts";
import { parseRequestsPath } from "../config/config.ts";
import type { RawSettings } from "../config/settings.ts";
import { RequestsFile, type RequestsFileSummary } from "../requests/file.ts";
import type { TrialTag } from "../requests/line.ts";
import type { TrialDeps } from "../trial/measure.ts";
import type { CommandIo } from "./io.ts";

export interface RequestsOut {
  /** The trial's dependency that writes its requests, tagged. */
  deps(tag: TrialTag): Pick<TrialDeps, "onRequestLine">;
  close(): Promise<RequestsFileSummary>;
}

/** A trial outside the gate's pairs: measure's one trial, a sweep's points. */
export const soloTag = (trial: number, label: string): TrialTag => ({
  trial,
  label,
  arm: null,
  pair: null,
  attempt: null,
});

export function openRequestsOut(
  raw: RawSettings,
  io: Pick<CommandIo, "openWriteStream"> & { redact: Redact },
): RequestsOut | null {
  const path = parseRequestsPath(raw, null);
  if (path === null) return null;
  const file = RequestsFile.open("requests-path", path, io.redact, io.openWriteStream);
  return {
    deps: (tag) => ({ onRequestLine: (r, at) => file.add(tag, r, at) }),
    close: () => file.close(),
  };
}

/** One line on what the requests file holds. */
export function describeRequests(s: RequestsFileSummary): string {
  const lost =
    s.dropped > 0
      ? `; ${s.dropped} lines not written${s.error ? ` (${s.error})` : " (the disk fell behind)"}`
      : "";
  return `requests written to ${s.path}: ${s.lines} lines${lost}`;
}
