// A text's lines one at a time: a file of a million newlines is walked, not
// split into an array of a million strings first.

/** Each line (without its "\r\n" or "\n") with its 1-based number. */
export function* linesOf(text: string): Generator<{ line: string; number: number }> {
  let number = 1;
  for (let start = 0; start <= text.length; number++) {
    const end = text.indexOf("\n", start);
    const stop = end === -1 ? text.length : end;
    const line = text.slice(start, text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop);
    yield { line, number };
    if (end === -1) return;
    start = end + 1;
  }
}
