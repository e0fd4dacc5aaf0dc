// Runs a quality suite against one variant, one request at a time (never
// mixed into the latency trials). Every sampling field is sent explicitly:
// servers fill omitted ones from model defaults that change between versions.

import { Agent, type Dispatcher, request } from "undici";
import { BodyLimitError, readCappedBody } from "../common/body.ts";
import { errorCode, errorMessage } from "../common/errors.ts";
import { RECONNECTABLE } from "../openai/connection.ts";
import { SseParser } from "../openai/sse.ts";
import {
  completionPath,
  origin,
  requestBody,
  requestHeaders,
  type Target,
} from "../openai/target.ts";
import { type Answer, answerFromJson, emptyAnswer, StreamAssembler } from "./answer.ts";
import { type CheckResult, runChecks } from "./checks.ts";
import type { QualityCase, Suite } from "./suite.ts";

export interface Attempt {
  stream: boolean;
  answer: Answer;
  results: CheckResult[];
}

export interface CaseRun {
  id: string;
  attempts: Attempt[];
}

export interface QualityRunOptions {
  /** Send vLLM's extra sampling fields (top_k −1, min_p 0, repetition_penalty 1) too. */
  vllmSampling: boolean;
  timeoutS: number;
}

export function qualityBody(
  target: Target,
  c: QualityCase,
  stream: boolean,
  vllmSampling: boolean,
): string {
  const fields: Record<string, unknown> = {
    messages: c.messages,
    max_tokens: c.max_tokens,
    temperature: c.temperature,
    top_p: c.top_p,
    seed: c.seed,
    n: 1,
  };
  if (vllmSampling) Object.assign(fields, { top_k: -1, min_p: 0, repetition_penalty: 1 });
  if (c.tools) fields.tools = c.tools;
  if (c.tool_choice) fields.tool_choice = c.tool_choice;
  if (c.response_format) fields.response_format = c.response_format;
  return requestBody(target, fields, stream, c.extra_body);
}

async function ask(
  agent: Agent,
  target: Target,
  body: string,
  stream: boolean,
  timeoutS: number,
): Promise<Answer> {
  const headers = requestHeaders(target, stream);
  const signal = AbortSignal.timeout(timeoutS * 1000);
  const failed = (error: unknown, reconnects: number) => {
    const a = emptyAnswer(0);
    const timeout = error instanceof Error && error.name === "TimeoutError";
    // An answer over the cap is the server's doing, not a failed connection.
    a.transport.push(
      error instanceof BodyLimitError
        ? "transport.too_large"
        : timeout
          ? "transport.timeout"
          : "transport.connect",
    );
    a.raw = errorMessage(error);
    a.reconnects = reconnects;
    return a;
  };
  let res: Dispatcher.ResponseData;
  let reconnects = 0;
  for (;;) {
    try {
      res = await request(`${origin(target)}${completionPath(target, "chat")}`, {
        method: "POST",
        headers,
        body,
        dispatcher: agent,
        signal,
      });
      break;
    } catch (error) {
      // A kept-alive connection the server had closed: once more on a fresh one.
      if (reconnects === 0 && RECONNECTABLE.has(errorCode(error) ?? "")) reconnects++;
      else return failed(error, reconnects);
    }
  }
  try {
    const answer = await readAnswer(res, stream, target);
    answer.reconnects = reconnects;
    return answer;
  } catch (error) {
    return failed(error, reconnects);
  }
}

/** A non-streamed answer or an error body larger than this is refused. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

async function readAnswer(
  res: Dispatcher.ResponseData,
  stream: boolean,
  target: Target,
): Promise<Answer> {
  const streaming =
    stream && String(res.headers["content-type"] ?? "").startsWith("text/event-stream");
  if (res.statusCode < 200 || res.statusCode >= 300 || !streaming) {
    // Bounded: the request's signal ends a dripping body, this cap an endless one.
    const text = (await readCappedBody(res.body, MAX_ANSWER_BYTES)).toString("utf8");
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const a = emptyAnswer(res.statusCode);
      a.raw = text.slice(0, 2000);
      return a;
    }
    const a = answerFromJson(res.statusCode, text);
    if (stream) a.transport.push("transport.not_a_stream");
    return a;
  }
  const assembler = new StreamAssembler(res.statusCode);
  const parser = new SseParser({
    onEvent: (e) => assembler.event(e.data, e.event),
    onUnknownField: (name, value) => assembler.field(name, value),
  });
  let raw = "";
  for await (const chunk of res.body) {
    if (raw.length < 20_000) raw += chunk.toString("utf8");
    parser.push(chunk);
  }
  const a = assembler.end(parser.end(), target.includeUsage);
  a.raw = raw.slice(0, 20_000);
  return a;
}

/** Runs the given cases (all, by default) against one variant. */
export async function runSuite(
  target: Target,
  suite: Suite,
  options: QualityRunOptions,
  only?: Set<string>,
): Promise<CaseRun[]> {
  const agent = new Agent({ connections: 1 });
  const runs: CaseRun[] = [];
  try {
    for (const c of suite.cases) {
      if (only && !only.has(c.id)) continue;
      const attempts: Attempt[] = [];
      const modes = c.stream === "both" ? [false, true] : [c.stream];
      for (let r = 0; r < c.repeats; r++) {
        const answers = new Map<boolean, Answer>();
        for (const stream of modes) {
          answers.set(
            stream,
            await ask(
              agent,
              target,
              qualityBody(target, c, stream, options.vllmSampling),
              stream,
              options.timeoutS,
            ),
          );
        }
        for (const stream of modes) {
          const answer = answers.get(stream) as Answer;
          attempts.push({ stream, answer, results: runChecks(c, answer, answers.get(!stream)) });
        }
      }
      runs.push({ id: c.id, attempts });
    }
  } finally {
    await agent.close();
  }
  return runs;
}
