// One way to write an output file: a user's file at that path is replaced
// whole when the run has something to put there, never truncated before —
// the text goes to a temporary file beside it, renamed over it when complete.
// What is not a regular file (a FIFO, /dev/stdout, a symlink) is written in
// place: renaming over it would replace the device or the link; so is a file
// whose folder takes no new file. (A replaced file gets default permissions.)

import { randomBytes } from "node:crypto";
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
import { errorCode } from "./errors.ts";

/** Whether the path names a regular file, or nothing yet (then it will be one). */
function replaceable(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return true;
  }
}

/** Where a temporary file beside the target cannot be made or renamed: the file is written in place. */
const IN_PLACE_ON = new Set(["EACCES", "EPERM", "EROFS", "EBUSY", "EXDEV"]);

/**
 * Writes `text` to `path`, replacing a regular file only once the text is all
 * written; in place where that cannot be done (a folder that is not writable,
 * a bind-mounted file).
 */
export function writeOutputFile(path: string, text: string): void {
  if (!replaceable(path)) {
    writeFileSync(path, text);
    return;
  }
  const suffix = randomBytes(6).toString("hex");
  const temporary = join(dirname(path), `.${basename(path)}.${suffix}.tmp`);
  try {
    // "wx": never through a file or link already at that name.
    writeFileSync(temporary, text, { flag: "wx" });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    if (!IN_PLACE_ON.has(errorCode(error) ?? "")) throw error;
    writeFileSync(path, text);
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
    if (errorCode(error) === "ENOENT") exists = false;
    else throw error;
  }
  accessSync(exists ? path : dirname(path), constants.W_OK);
}
