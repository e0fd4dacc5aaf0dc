// Bad input is a ConfigError: its message names the input, the bad value and
// what is accepted, and it is printed without a stack trace.

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function rejectValue(name: string, value: unknown, accepted: string): ConfigError {
  const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  return new ConfigError(`${name} = ${shown} is not accepted; expected ${accepted}`);
}
