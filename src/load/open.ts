// The requests a trial holds open, and the limit on them (record.ts
// OPEN_LIMIT): how many, and how many bytes of their bodies, which are kept
// for a resend until the answer ends. What is past the limit is not sent.

import type { InFlight } from "./client.ts";
import type { OpenLimit, RequestRecord } from "./record.ts";

export class OpenRequests {
  private readonly handles = new Map<RequestRecord, InFlight>();
  private readonly bodies = new Map<RequestRecord, number>();
  private bodyBytes = 0;
  private readonly limit: OpenLimit;

  constructor(limit: OpenLimit) {
    this.limit = limit;
  }

  get size(): number {
    return this.handles.size;
  }

  keys(): IterableIterator<RequestRecord> {
    return this.handles.keys();
  }

  /** The body's bytes when one more request with it fits within the limit (one alone always does). */
  roomFor(body: string): number | undefined {
    if (this.handles.size >= this.limit.requests) return undefined;
    const bytes = Buffer.byteLength(body);
    const fits = this.handles.size === 0 || this.bodyBytes + bytes <= this.limit.bodyBytes;
    return fits ? bytes : undefined;
  }

  open(r: RequestRecord, handle: InFlight, bytes: number): void {
    this.handles.set(r, handle);
    this.bodies.set(r, bytes);
    this.bodyBytes += bytes;
  }

  /** No longer open: its handle, to abort it, if it was. */
  close(r: RequestRecord): InFlight | undefined {
    const handle = this.handles.get(r);
    this.handles.delete(r);
    this.bodyBytes -= this.bodies.get(r) ?? 0;
    this.bodies.delete(r);
    return handle;
  }
}
