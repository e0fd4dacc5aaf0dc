// The lanes file: YAML (or JSON) validated against the schema we ship
// (schemas/lanes.schema.json), its defaults filled in. A lane names the
// environment variable that holds its key, never the key: the file can be
// committed, and nothing read from it is a secret.

import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import schema from "../../schemas/lanes.schema.json" with { type: "json" };
import { errorMessage, InputError, looksLikeCredential, shownValue } from "../common/errors.ts";
import { nonFiniteReason } from "../common/finite.ts";
import type { Outcome } from "../common/outcomes.ts";
import { describeSchemaError } from "../common/schema-errors.ts";
import { hasUserinfo, httpUrl } from "../common/url.ts";

export interface Lane {
  name: string;
  url: string;
  model: string;
  api_key_env?: string;
  tier?: number;
}

export interface LanesSpec {
  lanes: Lane[];
  task: {
    messages: { role: "system" | "user" | "assistant"; content: string }[];
    max_tokens: number;
    timeout_s: number;
  };
  floor: { latency: "ttft" | "full_answer"; ms: number };
  burst: { size: number; spacing_s: number };
  windows: { times: string[]; time_zone: string; tolerance_min: number };
  retry: { on: Outcome[]; max_attempts: number; backoff_s: number; max_wait_s: number };
  rule: {
    days: number;
    choose_min_pass: number;
    choose_max_retry: number;
    graduate_below_pass: number;
    graduate_days: number;
    graduate_above_retry: number;
  };
}

const ajv = new Ajv2020({ allErrors: false, strict: false, useDefaults: true });
const validate = ajv.compile<LanesSpec>(schema);

/** Parses and validates a lanes file's text; `source` names it in errors. */
export function parseLanes(text: string, source: string): LanesSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    // The parser's first line, shortened: the rest quotes the file (a binary one is junk).
    const reason = errorMessage(error).split("\n")[0]?.slice(0, 200);
    throw new InputError(`lanes ${source}: not YAML or JSON: ${reason}`);
  }
  // Sections left out entirely get their defaults too.
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const o: Record<string, unknown> = { ...raw };
    for (const key of ["burst", "retry", "rule"]) o[key] ??= {};
    // A one-off burst needs no windows: it belongs to none.
    o.windows ??= { times: [] };
    raw = o;
  }
  const nonFinite = nonFiniteReason(raw);
  if (nonFinite) throw new InputError(`lanes ${source}: ${nonFinite}`);
  if (!validate(raw))
    throw new InputError(`lanes ${source}: ${describeSchemaError(validate.errors, "the file")}`);
  const spec = raw;
  const names = new Set<string>();
  for (const lane of spec.lanes) {
    // A key pasted where a name belongs would be quoted by every later message: refused, described.
    if (looksLikeCredential(lane.name))
      throw new InputError(
        `lanes ${source}: a lane's name = ${shownValue(lane.name)}; expected a short name for the lane, its key in a secret named by api_key_env`,
      );
    if (lane.api_key_env !== undefined && looksLikeCredential(lane.api_key_env))
      throw new InputError(
        `lanes ${source}: lane "${lane.name}": api_key_env = ${shownValue(lane.api_key_env)}: it holds what looks like a key itself, not the name of an environment variable; put the key in a secret and name its variable here (such as LANE_KEY)`,
      );
    if (names.has(lane.name))
      throw new InputError(`lanes ${source}: lane "${lane.name}" is named twice`);
    names.add(lane.name);
    const url = httpUrl(lane.url);
    const expected =
      "expected an http(s) base URL such as https://api.example.com/v1, its key in api_key_env";
    // Credentials are described, never quoted.
    if (hasUserinfo(lane.url) || url?.username || url?.password)
      throw new InputError(
        `lanes ${source}: lane "${lane.name}": its url carries credentials (the URL is not shown); ${expected}`,
      );
    if (!url)
      throw new InputError(
        `lanes ${source}: lane "${lane.name}": url = ${shownValue(lane.url)} is not an http(s) URL; ${expected}`,
      );
  }
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: spec.windows.time_zone });
  } catch {
    throw new InputError(
      `lanes ${source}: windows.time_zone = ${JSON.stringify(spec.windows.time_zone)} is not a time zone; expected an IANA name such as Europe/Berlin or UTC`,
    );
  }
  return spec;
}
