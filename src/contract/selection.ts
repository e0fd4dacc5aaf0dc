// `contract: builtin | none | FILE`: a file chooses which probes and items of
// the builtin suite run — `{"include": [...], "exclude": [...]}`, each an id
// or a prefix of one ("errors", "stream.role_chunk") — so a team can accept a
// known change or skip a probe its server cannot serve.

import { InputError } from "../common/errors.ts";
import { isObject, parseJson } from "./items.ts";
import { BUILTIN_PROBES, type ContractSelection, under } from "./probes.ts";

const MAX_IDS = 200;
const ID = /^[a-z_]+(\.[a-z_]+)*$/;

/** Ids that name a probe, an item under one, or a group of probes ("errors"). */
function known(id: string): boolean {
  if (["ratelimit", "ratelimit.retry_after_429", "ratelimit.retry_after_503"].includes(id))
    return true;
  return BUILTIN_PROBES.some((p) => under(id, p.id) || under(p.id, id));
}

function idList(file: string, body: Record<string, unknown>, key: "include" | "exclude"): string[] {
  const value = body[key];
  if (value === undefined) return [];
  const accepted = `a list of at most ${MAX_IDS} probe or item ids, e.g. "errors", "stream.role_chunk" (probes: ${BUILTIN_PROBES.map((p) => p.id).join(", ")}, ratelimit)`;
  if (!Array.isArray(value) || value.length > MAX_IDS)
    throw new InputError(`contract file ${file}: "${key}" is not accepted; expected ${accepted}`);
  return value.map((id, i) => {
    if (typeof id !== "string" || !ID.test(id) || !known(id))
      throw new InputError(
        `contract file ${file}: ${key}[${i}] = ${JSON.stringify(String(id).slice(0, 80))} names no probe or item; expected ${accepted}`,
      );
    return id;
  });
}

export function parseContractSelection(text: string, file: string): ContractSelection {
  const body = parseJson(text);
  if (!isObject(body))
    throw new InputError(
      `contract file ${file} is not a JSON object; expected {"include": [...], "exclude": [...]}`,
    );
  const stray = Object.keys(body).find((k) => k !== "include" && k !== "exclude");
  if (stray !== undefined)
    throw new InputError(
      `contract file ${file}: key ${JSON.stringify(stray.slice(0, 80))} is not accepted; expected include and exclude`,
    );
  return { include: idList(file, body, "include"), exclude: idList(file, body, "exclude") };
}
