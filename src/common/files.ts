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
  "accuracy items": 64 * MiB,
  "judge items": 64 * MiB,
  "judge pairs": 64 * MiB,
  tokenizer: 64 * MiB,
  "results file": 64 * MiB,
  "GitHub event payload": 16 * MiB,
  // Under the longest string V8 can hold (just under 512 MiB).
  trace: 500 * MiB,
  dataset: 500 * MiB,
} as const;

export type FileKind = keyof typeof FILE_CAPS_BYTES;

/**
 * The lines a line-per-row kind may hold, counted while reading: a file of
 * ten million short rows is refused after the first cap's worth, not read
 * whole and parsed (docs/config.md lists them). A dataset is not capped by
 * lines: its JSON form may be pretty-printed over many.
 */
export const FILE_LINE_CAPS: Partial<Record<FileKind, number>> = {
  // workload/trace.ts's 2,000,000 rows and a CSV header, each ended by its newline.
  trace: 2_000_001,
  "lanes history": 1_000_000,
  "quality suite": 1_000_000,
  // accuracy/file.ts's 100,000 items, with room for blank and comment lines.
  "accuracy items": 200_000,
  // judge/file.ts's 100,000 items and 10,000 labelled pairs, with room for blank and comment lines.
  "judge items": 200_000,
  "judge pairs": 20_000,
};

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

const tooBig = (kind: FileKind) =>
  new Error(`it is larger than the ${mib(FILE_CAPS_BYTES[kind])} a ${kind} may weigh`);

/** The file's text, or an Error that says why not (the caller names the input). */
export function readInputFile(path: string, kind: FileKind): string {
  const refuse = (stats: Stats) =>
    new Error(`it is ${whatItIs(stats)}; a ${kind} must be a regular file`);
  // stat before open: opening a FIFO for reading blocks until a writer comes.
  const before = statSync(path);
  if (!before.isFile()) throw refuse(before);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refuse(stats);
    if (stats.size > FILE_CAPS_BYTES[kind]) throw tooBig(kind);
    const capLines = FILE_LINE_CAPS[kind];
    // A first pass holding one chunk at a time, so ten million rows are
    // refused without ever being held.
    if (capLines !== undefined) countLines(fd, kind, capLines);
    return readWhole(fd, kind, stats.size);
  } finally {
    closeSync(fd);
  }
}

/** Reads the file from its start, at most its kind's bytes. */
function readWhole(fd: number, kind: FileKind, sizeBytes: number): string {
  const capBytes = FILE_CAPS_BYTES[kind];
  // Room for one byte past the size, so the end is seen in one read; grown
  // while a file that reports no size (procfs) goes on.
  let buffer = Buffer.alloc(Math.min(capBytes + 1, Math.max(sizeBytes + 1, 64 * 1024)));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > capBytes) throw tooBig(kind);
      const bigger = Buffer.alloc(Math.min(capBytes + 1, 2 * buffer.length));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, length, buffer.length - length, length);
    if (n === 0) break;
    length += n;
  }
  if (length > capBytes) throw tooBig(kind);
  return buffer.subarray(0, length).toString("utf8");
}

/** Counts the file's newlines a chunk at a time, to a byte past its cap; an Error past the kind's line cap. */
function countLines(fd: number, kind: FileKind, capLines: number): void {
  const chunk = Buffer.alloc(MiB);
  let lines = 0;
  for (let at = 0; at <= FILE_CAPS_BYTES[kind]; ) {
    const n = readSync(fd, chunk, 0, chunk.length, at);
    if (n === 0) return;
    at += n;
    const read = chunk.subarray(0, n);
    for (let i = read.indexOf(10); i !== -1; i = read.indexOf(10, i + 1)) lines++;
    if (lines > capLines)
      throw new Error(
        `it has more than ${capLines.toLocaleString("en-US")} lines, the most a ${kind} may hold`,
      );
  }
}
