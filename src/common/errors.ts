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
