// Bad input is an InputError: its message names the input, the bad value and
// what is accepted, and it is printed without a stack trace.

export class InputError extends Error {
  override name = "InputError";
}

export function rejectValue(name: string, value: unknown, accepted: string): InputError {
  const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  return new InputError(`${name} = ${shown} is not accepted; expected ${accepted}`);
}

/** The message of anything thrown, without assuming it is an Error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of anything thrown (ENOENT, UND_ERR_SOCKET, …), when it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
