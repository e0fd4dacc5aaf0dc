// Files written as streams, kept in memory: the requests file of a gate whose
// other files are a Map.

import { Writable } from "node:stream";
import { gunzipSync } from "node:zlib";
import type { OpenWriteStream } from "../../src/requests/file.ts";

export interface MemoryStreams {
  open: OpenWriteStream;
  /** What was written to `path` (gunzipped when the name ends in .gz); undefined: never opened. */
  text(path: string): string | undefined;
}

export function memoryStreams(): MemoryStreams {
  const files = new Map<string, Buffer[]>();
  return {
    open: (path) => {
      const chunks: Buffer[] = [];
      files.set(path, chunks);
      return new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(Buffer.from(chunk));
          done();
        },
      });
    },
    text: (path) => {
      const chunks = files.get(path);
      if (!chunks) return undefined;
      const bytes = Buffer.concat(chunks);
      return (path.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
    },
  };
}
