// Reading a typed array (or any array) at an index known to be in range: a
// RangeError, not a silent undefined, when it is not.

export function at<T>(values: ArrayLike<T>, i: number): T {
  const v = values[i];
  if (v === undefined) throw new RangeError(`internal error: index ${i} of ${values.length}`);
  return v;
}
