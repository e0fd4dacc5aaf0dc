// One way to read an input file: a regular file only (a FIFO would block, a
// device never ends, a directory is not text), at most its kind's size, read
// with the cap enforced while reading (a /proc file reports size 0).

import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

const MiB = 1024 * 1024;

/** What each kind of input file may weigh (docs/config.md lists them). */
export const FILE_CAPS_BYTES = {
  "config file": 1 * MiB,
  "mock profile": 1 * MiB,
  "lanes file": 1 * MiB,
  "contract file": 1 * MiB,
  "lanes history": 64 * MiB,
  "quality suite": 16 * MiB,
  tokenizer: 64 * MiB,
  "results file": 64 * MiB,
  "GitHub event payload": 16 * MiB,
  // Under the longest string V8 can hold (just under 512 MiB).
  trace: 500 * MiB,
  dataset: 500 * MiB,
} as const;

export type FileKind = keyof typeof FILE_CAPS_BYTES;

/** Reads an input file of a kind as text; tests pass a fake that may ignore the kind. */
export type ReadFile = (path: string, kind: FileKind) => string;

/** What a non-regular file is, in a message's words. */
function whatItIs(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

const mib = (bytes: number) => `${Number((bytes / MiB).toPrecision(3))} MiB`;

/** The file's text, or an Error that says why not (the caller names the input). */
export function readInputFile(path: string, kind: FileKind): string {
  const capBytes = FILE_CAPS_BYTES[kind];
  const refuse = (stats: Stats) =>
    new Error(`it is ${whatItIs(stats)}; a ${kind} must be a regular file`);
  // stat before open: opening a FIFO for reading blocks until a writer comes.
  const before = statSync(path);
  if (!before.isFile()) throw refuse(before);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refuse(stats);
    const tooBig = () => new Error(`it is larger than the ${mib(capBytes)} a ${kind} may weigh`);
    if (stats.size > capBytes) throw tooBig();
    // Room for one byte past the size, so the end is seen in one read; grown
    // while a file that reports no size (procfs) goes on.
    let buffer = Buffer.alloc(Math.min(capBytes + 1, Math.max(stats.size + 1, 64 * 1024)));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > capBytes) throw tooBig();
        const bigger = Buffer.alloc(Math.min(capBytes + 1, 2 * buffer.length));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > capBytes) throw tooBig();
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
