// Numbers as reports show them.

/** A change: +12.3 % or −5.0 %. */
export const signedPercent = (x: number): string => {
  const shown = Math.abs(x * 100).toFixed(1);
  // What rounds to zero reads as no change, not as "−0.0 %".
  return `${x >= 0 || Number(shown) === 0 ? "+" : "−"}${shown} %`;
};

/** A change in percentage points: "+4.2 points", "−0.5 points". */
export const signedPoints = (x: number): string =>
  `${x >= 0 ? "+" : "−"}${(Math.abs(x) * 100).toFixed(1)} points`;

/** A share: 3.2 %. */
export const percent = (x: number, digits = 1): string => `${(x * 100).toFixed(digits)} %`;

/** About three significant digits, as the comment shows latencies: 1234, 21.7, 0.81. */
export function compact(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  // Decided on the rounded value, so 9.999 shows as "10.0", not "10.00".
  if (Math.abs(Number(v.toFixed(1))) >= 100) return v.toFixed(0);
  if (Math.abs(Number(v.toFixed(2))) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** A count as counted: 8, not 8.00 (a median of two counts may be 7.5). */
export const count = (v: number): string => (Number.isInteger(v) ? String(v) : compact(v));

/** "1 case", "3 cases". */
export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n} ${n === 1 ? one : many}`;

/** A change in milliseconds: +31.0 ms, −2.50 ms; "–" when unknown. */
export const signedMs = (v: number | null | undefined): string =>
  v === null || v === undefined ? "–" : `${v >= 0 ? "+" : "−"}${compact(Math.abs(v))} ms`;

/** Text from a server or a file as a markdown code span: nothing in it renders (no markup, mention or link). */
export const codeSpan = (text: string, maxChars = 120): string =>
  `\`${
    text
      .replace(/[`|\r\n]+/g, " ")
      .trim()
      .slice(0, maxChars) || " "
  }\``;
