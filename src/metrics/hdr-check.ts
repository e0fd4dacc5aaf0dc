// An encoded histogram from another process's file is hostile input: HDR's
// decoder expands a zero run of any length it is given (a few bytes can ask
// for days of work) and inflates without a bound. Before it decodes, the
// encoding is checked: our histograms' header, an inflated size within the
// counts array, and runs that stay inside it.

import { inflateSync } from "node:zlib";

/** V2 compressed and V2 encoding cookies (HdrHistogram's wire format). */
const COMPRESSED_COOKIE = 0x1c849314;
const ENCODING_COOKIE = 0x1c849313;
const HEADER_BYTES = 40;
/** The counts array of newHdr()'s histograms (3 digits, 1 µs to one hour). */
export const COUNTS_LENGTH = 23_552;
/**
 * Values of 2^32 µs (71.6 min) and more resize it: its highest becomes
 * 2^k − 1 and it holds 1,024 slots more per bit. A timeout is at most a day
 * (2^37 µs covers it).
 */
const MAX_BITS = 37;
const countsLength = (highest: bigint): number | null => {
  if (highest === 3_600_000_000n) return COUNTS_LENGTH;
  for (let k = 33; k <= MAX_BITS; k++)
    if (highest === 2n ** BigInt(k) - 1n) return COUNTS_LENGTH + 1024 * (k - 32);
  return null;
};
const MAX_ENCODED_CHARS = 2 * 1024 * 1024;
/** A count (LEB128, up to 9 bytes) per slot at most, and the header. */
const MAX_INFLATED_BYTES = HEADER_BYTES + 9 * (COUNTS_LENGTH + 1024 * (MAX_BITS - 32));

/** Why this encoding is not one of our histograms; null when it decodes safely. */
export function encodingProblem(encoded: string): string | null {
  if (typeof encoded !== "string" || encoded.length > MAX_ENCODED_CHARS)
    return "not a histogram encoding of at most 2 MiB";
  const outer = Buffer.from(encoded, "base64");
  // Node skips what is not base64 where the decoder reads zero bits: only one reading is checked.
  if (outer.toString("base64") !== encoded) return "not canonical base64";
  if (outer.length < 8 || outer.readInt32BE(0) !== COMPRESSED_COOKIE)
    return "not a compressed HdrHistogram (V2)";
  let inner: Buffer;
  try {
    inner = inflateSync(outer.subarray(8, 8 + Math.max(0, outer.readInt32BE(4))), {
      maxOutputLength: MAX_INFLATED_BYTES,
    });
  } catch {
    return "its counts do not inflate within the size of our histograms";
  }
  if (inner.length < HEADER_BYTES || inner.readInt32BE(0) !== ENCODING_COOKIE)
    return "not an HdrHistogram V2 encoding";
  const payload = inner.readInt32BE(4);
  const slots = countsLength(inner.readBigInt64BE(24));
  if (
    inner.readInt32BE(12) !== 3 ||
    inner.readBigInt64BE(16) !== 1n ||
    slots === null ||
    payload < 0 ||
    HEADER_BYTES + payload > inner.length
  )
    return "not a histogram of microseconds with 3 significant digits up to a day";
  return slotsProblem(inner.subarray(HEADER_BYTES, HEADER_BYTES + payload), slots);
}

/** The ZigZag LEB128 counts (a negative one a run of empty slots) stay within the counts array. */
function slotsProblem(payload: Buffer, slots: number): string | null {
  let slot = 0;
  let at = 0;
  while (at < payload.length) {
    let value = 0;
    let scale = 1;
    let byte = 0x80;
    for (let k = 0; k < 9 && byte & 0x80; k++) {
      if (at >= payload.length) return "a count is cut short";
      byte = payload[at++] ?? 0;
      value += (byte & 0x7f) * scale;
      scale *= 128;
    }
    // ZigZag: odd values are negative (a run of value + 1 over 2 empty slots).
    slot += value % 2 === 1 ? (value + 1) / 2 : 1;
    if (slot > slots) return "its counts run past the histogram's slots";
  }
  return null;
}
