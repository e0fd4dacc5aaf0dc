// A streaming Server-Sent Events parser (WHATWG event-stream rules) that gives
// the same events for any split of the byte stream: events and UTF-8
// characters split across chunks, CR / LF / CRLF line ends (a CR at the end of
// one chunk and an LF at the start of the next are one line end), multi-line
// data, comments and unknown fields.

export interface SseEvent {
  /** Data lines joined with "\n". */
  data: string;
  /** The `event:` field, "" when absent (the spec's default "message"). */
  event: string;
}

export interface SseCallbacks {
  onEvent(event: SseEvent): void;
  /** A comment line such as `: ping`; the text after the colon. */
  onComment?(text: string): void;
  /**
   * A field the spec does not define (the spec ignores it): llama.cpp's
   * server sends its in-stream errors as an `error:` field.
   */
  onUnknownField?(name: string, value: string): void;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private readonly callbacks: SseCallbacks;
  /** The start of a line whose end has not arrived yet. */
  private partial = "";
  private data = "";
  private hasData = false;
  private eventType = "";
  private afterCR = false;
  /** Whether any field of an undispatched event has been seen. */
  private open = false;

  constructor(callbacks: SseCallbacks) {
    this.callbacks = callbacks;
  }

  /** Feeds raw bytes; complete events are delivered before this returns. */
  push(bytes: Uint8Array): void {
    this.feed(this.decoder.decode(bytes, { stream: true }));
  }

  /**
   * Ends the stream. Returns true when it stopped inside an event (an
   * incomplete line or fields without the blank line that dispatches them);
   * such an event is discarded, as the spec says.
   */
  end(): boolean {
    this.feed(this.decoder.decode());
    const incomplete = this.partial.length > 0 || this.open;
    this.partial = "";
    this.resetEvent();
    return incomplete;
  }

  private feed(text: string): void {
    let start = 0;
    if (this.afterCR && text.length > 0) {
      this.afterCR = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    if (text.indexOf("\r", start) === -1) {
      // The common case, LF only: let indexOf find the line ends.
      for (let nl = text.indexOf("\n", start); nl !== -1; nl = text.indexOf("\n", start)) {
        this.endLine(text.slice(start, nl));
        start = nl + 1;
      }
    } else {
      for (let i = start; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c !== LF && c !== CR) continue;
        this.endLine(text.slice(start, i));
        if (c === CR) {
          if (i + 1 < text.length) {
            if (text.charCodeAt(i + 1) === LF) i++;
          } else {
            this.afterCR = true;
          }
        }
        start = i + 1;
      }
    }
    if (start < text.length) this.partial += text.slice(start);
  }

  private endLine(piece: string): void {
    if (this.partial.length > 0) {
      const line = this.partial + piece;
      this.partial = "";
      this.line(line);
    } else {
      this.line(piece);
    }
  }

  private line(line: string): void {
    if (line.length === 0) {
      if (this.hasData) this.callbacks.onEvent({ data: this.data, event: this.eventType });
      this.resetEvent();
      return;
    }
    if (line.charCodeAt(0) === COLON) {
      this.callbacks.onComment?.(line.slice(1));
      return;
    }
    this.open = true;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === SPACE) value = value.slice(1);
    if (field === "data") {
      this.data = this.hasData ? `${this.data}\n${value}` : value;
      this.hasData = true;
    } else if (field === "event") {
      this.eventType = value;
    } else if (field !== "id" && field !== "retry") {
      this.callbacks.onUnknownField?.(field, value);
    }
    // id and retry carry nothing a completion stream needs.
  }

  private resetEvent(): void {
    this.data = "";
    this.hasData = false;
    this.eventType = "";
    this.open = false;
  }
}
