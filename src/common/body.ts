// One way to read a server's whole body (a metrics page, an error, a
// non-streamed answer): at most a byte cap, counted while reading, and within
// a total deadline — an idle timeout alone never ends a body dripped a byte
// at a time, and a cap checked after reading never ends an endless one.

import type { Readable } from "node:stream";

export class BodyLimitError extends Error {
  override name = "BodyLimitError";
}

/**
 * The body's bytes, or a BodyLimitError once it passes maxBytes or deadlineMs
 * (none: the request's own signal bounds it); the body is destroyed then.
 */
export async function readCappedBody(
  body: Readable,
  maxBytes: number,
  deadlineMs?: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  let timedOut = false;
  const timer =
    deadlineMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          body.destroy(new BodyLimitError(`the body did not end within ${deadlineMs} ms`));
        }, deadlineMs);
  try {
    for await (const chunk of body) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      length += bytes.length;
      if (length > maxBytes) {
        body.destroy();
        throw new BodyLimitError(`the body passed ${maxBytes} bytes`);
      }
      chunks.push(bytes);
    }
  } catch (error) {
    if (timedOut) throw new BodyLimitError(`the body did not end within ${deadlineMs} ms`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) throw new BodyLimitError(`the body did not end within ${deadlineMs} ms`);
  return Buffer.concat(chunks, length);
}
