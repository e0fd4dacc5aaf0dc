// A JSON Schema validator's first error in words: where (the JSON pointer, or
// the whole document), what is wrong, and what is accepted.

import type { ErrorObject } from "ajv";

export function describeSchemaError(
  errors: ErrorObject[] | null | undefined,
  whole: string,
): string {
  const e = errors?.[0];
  if (!e) return "invalid";
  const where = e.instancePath === "" ? whole : e.instancePath;
  const extra =
    e.keyword === "additionalProperties"
      ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
      : "";
  const allowed =
    e.keyword === "enum"
      ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}`
      : "";
  return `${where} ${e.message}${extra}${allowed}`;
}
