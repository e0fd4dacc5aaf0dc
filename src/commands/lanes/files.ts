// The lanes files a command reads: the lanes file (required where named) and
// the history (none yet is an empty history; a bad line is an error naming it).

import { errorCode, errorMessage, InputError } from "../../common/errors.ts";
import { type HistoryRow, parseHistory } from "../../lanes/history.ts";
import { type LanesSpec, parseLanes } from "../../lanes/spec.ts";
import type { CommandIo } from "../io.ts";

export function readLanes(io: Pick<CommandIo, "readFile">, path: string): LanesSpec {
  let text: string;
  try {
    text = io.readFile(path, "lanes file");
  } catch (error) {
    throw new InputError(`lanes = ${JSON.stringify(path)} cannot be read: ${errorMessage(error)}`);
  }
  return parseLanes(text, path);
}

/** A history's text and rows; a file that does not exist yet is empty, unless it is required. */
export function readHistory(
  io: Pick<CommandIo, "readFile">,
  path: string,
  missing: "empty" | "required" = "empty",
): { text: string; rows: HistoryRow[] } {
  let text: string;
  try {
    text = io.readFile(path, "lanes history");
  } catch (error) {
    if (missing === "empty" && errorCode(error) === "ENOENT") return { text: "", rows: [] };
    throw new InputError(
      `lanes-history = ${JSON.stringify(path)} cannot be read: ${errorMessage(error)}`,
    );
  }
  try {
    return { text, rows: parseHistory(text, path) };
  } catch (error) {
    throw new InputError(errorMessage(error));
  }
}
