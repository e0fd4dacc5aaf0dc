// JSON Schemas as the quality suite uses them: compiled once each (ajv), for
// the suite's own check when it is read and for every answer checked against
// one.

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

/** The schema compiled once (ajv); throws on a schema ajv cannot compile. */
export function validator(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(key, v);
  }
  return v;
}
