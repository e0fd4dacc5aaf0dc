// The requests file: one line per scheduled request, written as the trials
// run. The name says the format — .jsonl or .csv, gzipped when it ends in
// .gz. Opened before the first request (an unwritable path is an error now,
// not after the trials); memory stays bounded: while the disk is behind by
// more than a few MiB, lines are dropped and counted, never queued without end.

import { createWriteStream, openSync } from "node:fs";
import { pipeline, type Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { createGzip, type Gzip } from "node:zlib";
import { errorMessage, InputError } from "../common/errors.ts";
import type { Redact } from "../common/redact.ts";
import type { RequestRecord } from "../load/record.ts";
import {
  REQUEST_COLUMNS,
  REQUESTS_SCHEMA,
  type RequestLine,
  requestLine,
  type TrialContext,
  type TrialTag,
} from "./line.ts";

export type RequestsFormat = "jsonl" | "csv";

export interface RequestsFileSummary {
  schema: typeof REQUESTS_SCHEMA;
  path: string;
  format: RequestsFormat;
  gzip: boolean;
  lines: number;
  /** Lines not written: the disk fell behind (bounded memory) or the file failed. */
  dropped: number;
  /** Why writing stopped, if it did. */
  error: string | null;
}

/** Bytes the writer may hold for a slow disk before it drops lines. */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

const FORMATS = /\.(jsonl|csv)(\.gz)?$/;

/** The format a path's name asks for. */
export function requestsFormat(
  setting: string,
  path: string,
): { format: RequestsFormat; gzip: boolean } {
  const m = FORMATS.exec(path);
  if (!m) {
    throw new InputError(
      `${setting} = ${JSON.stringify(path.slice(0, 200))}: the name must end in .jsonl, .jsonl.gz, .csv or .csv.gz (the format), or be none`,
    );
  }
  return { format: m[1] === "csv" ? "csv" : "jsonl", gzip: m[2] !== undefined };
}

/** A CSV field: quoted when it must be; a text a spreadsheet would run as a formula is defused. */
function csvField(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvRow = (line: RequestLine): string =>
  REQUEST_COLUMNS.map((c) => csvField(line[c])).join(",");

export const CSV_HEADER = REQUEST_COLUMNS.join(",");

/** Opens a file for writing (creates or truncates it): throws at once when it cannot. */
export type OpenWriteStream = (path: string) => Writable;

export const openFileStream: OpenWriteStream = (path) =>
  createWriteStream("", { fd: openSync(path, "w") });

export class RequestsFile {
  private lines = 0;
  private dropped = 0;
  private error: string | null = null;
  private readonly file: Writable;
  private readonly gzip: Gzip | undefined;
  private readonly format: RequestsFormat;
  private readonly path: string;
  private readonly redact: Redact;

  private constructor(
    path: string,
    file: Writable,
    format: RequestsFormat,
    gzip: boolean,
    redact: Redact,
  ) {
    this.path = path;
    this.format = format;
    this.redact = redact;
    this.file = file;
    this.file.on("error", (e) => this.fail(e));
    if (gzip) {
      this.gzip = createGzip();
      // pipeline, not pipe: a gzip error ends the file too, so close() cannot wait forever.
      pipeline(this.gzip, this.file, (e) => {
        if (e) this.fail(e);
      });
    }
    if (format === "csv") this.sink.write(`${CSV_HEADER}\n`);
  }

  /** Opens (creates or truncates) `path`; `setting` names it in an error. */
  static open(
    setting: string,
    path: string,
    redact: Redact,
    open: OpenWriteStream = openFileStream,
  ): RequestsFile {
    const { format, gzip } = requestsFormat(setting, path);
    let file: Writable;
    try {
      file = open(path);
    } catch (error) {
      throw new InputError(
        `${setting} = ${JSON.stringify(path)} cannot be written: ${errorMessage(error)}`,
      );
    }
    return new RequestsFile(path, file, format, gzip, redact);
  }

  private get sink(): Writable {
    return this.gzip ?? this.file;
  }

  private fail(error: unknown): void {
    this.error ??= errorMessage(error);
  }

  /** A measured request of the trial `tag`: its line, the server's texts redacted before they are cut. */
  add = (tag: TrialTag, r: RequestRecord, at: TrialContext): void => {
    this.write(requestLine(tag, r, at, this.redact));
  };

  write = (line: RequestLine): void => {
    const behind = this.sink.writableLength + (this.gzip ? this.file.writableLength : 0);
    if (this.error !== null || behind > MAX_BUFFERED_BYTES) {
      this.dropped++;
      return;
    }
    // Each text before it is encoded: a secret with a quote in it still matches.
    const clean = { ...line };
    for (const c of REQUEST_COLUMNS) {
      const v = clean[c];
      if (typeof v === "string") clean[c] = this.redact(v);
    }
    const text = this.format === "csv" ? csvRow(clean) : JSON.stringify(clean);
    this.sink.write(`${text}\n`);
    this.lines++;
  };

  /** Flushes and closes; what was written. */
  async close(): Promise<RequestsFileSummary> {
    if (this.error === null) {
      this.sink.end();
      await finished(this.file, { readable: false }).catch((e) => this.fail(e));
    } else {
      this.gzip?.destroy();
      this.file.destroy();
    }
    return {
      schema: REQUESTS_SCHEMA,
      path: this.path,
      format: this.format,
      gzip: this.gzip !== undefined,
      lines: this.lines,
      dropped: this.dropped,
      error: this.error,
    };
  }
}
