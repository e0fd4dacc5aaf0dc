// Bad input is an InputError: its message names the input, the bad value and
// what is accepted, and it is printed without a stack trace.

export class InputError extends Error {
  override name = "InputError";
}

export function rejectValue(name: string, value: unknown, accepted: string): InputError {
  return new InputError(`${name} = ${shownValue(value)} is not accepted; expected ${accepted}`);
}

/**
 * What looks like a credential: userinfo in a URL, a bearer or basic token, a
 * provider's key prefix (sk-, hf_, ghp_, xoxb-, AKIA…) or 40 key characters
 * with no separator. Such a value is described in a message, never quoted.
 */
const CREDENTIAL_LIKE =
  /:\/\/[^/?#\s]*@|\b(bearer|basic)\s+\S|\b(sk|pk|rk|hf|ghp|gho|ghs|ghu|github_pat|xox[abpr]|glpat)[-_][A-Za-z0-9_-]{6,}|\bAKIA[A-Z0-9]{12,}|[A-Za-z0-9+=]{40,}/i;

export const looksLikeCredential = (text: string): boolean => CREDENTIAL_LIKE.test(text);

/** A bad value as a message shows it: quoted, or described when it may be a credential. */
export function shownValue(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  if (CREDENTIAL_LIKE.test(text))
    return `(a value that looks like a credential, ${text.length} characters, not shown)`;
  return typeof value === "string" ? JSON.stringify(value) : text;
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
