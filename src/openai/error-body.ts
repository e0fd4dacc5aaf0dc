// The `type` and `code` of an OpenAI-shaped error: {"error": {...}} or the
// error object itself, as bodies and in-band stream errors carry them.

export function errorTypeCode(text: string | undefined): { type?: string; code?: string } {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {}; // an excerpt cut short, or not JSON
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const outer = parsed as Record<string, unknown>;
  const error = typeof outer.error === "object" && outer.error !== null ? outer.error : outer;
  const { type, code } = error as Record<string, unknown>;
  const asText = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return { type: asText(type), code: asText(code) };
}
