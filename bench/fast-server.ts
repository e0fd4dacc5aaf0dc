// A deliberately cheap OpenAI-style streaming server for benchmarking the load
// generator: every response is precomputed and written several SSE events per
// socket write, so on a 2-core machine the server is not what limits.
// Usage: node bench/fast-server.ts [port] [tokens per response] [events per write]

import { createServer } from "node:http";
import { vllmPage } from "./metrics-page.ts";

const port = Number(process.argv[2] ?? 0);
const tokens = Number(process.argv[3] ?? 64);
const perWrite = Number(process.argv[4] ?? 16);

const chunk = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: "bench", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null })}\n\n`;

const events = [chunk({ role: "assistant", content: "" }, null)];
for (let i = 0; i < tokens; i++) events.push(chunk({ content: ` tok${i}` }, null));
events.push(chunk({}, "length"));
events.push(
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: "bench", choices: [], usage: { prompt_tokens: 64, completion_tokens: tokens, total_tokens: 64 + tokens } })}\n\n`,
  "data: [DONE]\n\n",
);
const writes: Buffer[] = [];
for (let i = 0; i < events.length; i += perWrite)
  writes.push(Buffer.from(events.slice(i, i + perWrite).join("")));

// GET /metrics: a page the size of a real vLLM server's, for bench/scraper.ts.
const metricsPage = Buffer.from(vllmPage());

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.method === "GET" && req.url === "/metrics") {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(metricsPage);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    let i = 0;
    // One write per loop turn, so the client receives the stream in several reads.
    const next = () => {
      const last = i === writes.length - 1;
      if (last) res.end(writes[i]);
      else {
        res.write(writes[i++]);
        setImmediate(next);
      }
    };
    next();
  });
});
server.listen(port, "127.0.0.1", () => {
  const address = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
