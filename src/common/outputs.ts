// One way to write an output file: a user's file at that path is replaced
// whole when the run has something to put there, never truncated before —
// the text goes to a temporary file beside it, renamed over it when complete.
// What is not a regular file (a FIFO, /dev/stdout, a symlink) is written in
// place: renaming over it would replace the device or the link.

import {
  accessSync,
  constants,
  lstatSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

/** Whether the path names a regular file, or nothing yet (then it will be one). */
function replaceable(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return true;
  }
}

/** Writes `text` to `path`, replacing a regular file only once the text is all written. */
export function writeOutputFile(path: string, text: string): void {
  if (!replaceable(path)) {
    writeFileSync(path, text);
    return;
  }
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Throws when `path` could not be written, without touching it: an existing
 * file must be writable and not a directory, a new one's folder writable.
 */
export function checkWritable(path: string): void {
  let exists = true;
  try {
    if (statSync(path).isDirectory()) throw new Error("it is a directory");
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") exists = false;
    else throw error;
  }
  accessSync(exists ? path : dirname(path), constants.W_OK);
}
