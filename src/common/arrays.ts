// Reading a typed array (or any array) at an index known to be in range: a
// RangeError, not a silent undefined, when it is not.

export function at<T>(values: ArrayLike<T>, i: number): T {
  const v = values[i];
  if (v === undefined) throw new RangeError(`internal error: index ${i} of ${values.length}`);
  return v;
}

/** Whether `key` is one of `keys` (and so of their type). */
export function isOneOf<K extends string>(keys: readonly K[], key: string): key is K {
  return keys.some((k) => k === key);
}

/** A record with a value for each of `keys`. */
export function recordOf<K extends string, V>(
  keys: readonly K[],
  value: (key: K) => V,
): Record<K, V> {
  const out: Partial<Record<K, V>> = {};
  for (const k of keys) out[k] = value(k);
  // Every key was just given a value.
  return out as Record<K, V>;
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
