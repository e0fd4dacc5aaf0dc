// A server's body is read with a cap counted while reading and one deadline
// for the whole body: a /metrics that drips a byte at a time, or never ends,
// ends the scrape in bounded time and memory.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { metricsFetcher } from "../../src/servermetrics/scraper.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

async function serve(
  write: (res: import("node:http").ServerResponse) => () => void,
): Promise<{ url: string; server: Server }> {
  const stops: (() => void)[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    stops.push(write(res));
  });
  server.on("close", () => {
    for (const stop of stops) stop();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/metrics`, server };
}

test(
  "a /metrics that drips a byte every 50 ms ends the scrape at its deadline",
  LOAD_TEST,
  async () => {
    const { url, server } = await serve((res) => {
      const timer = setInterval(() => res.write("#"), 50);
      return () => clearInterval(timer);
    });
    const { fetch, close } = metricsFetcher();
    try {
      const started = performance.now();
      await assert.rejects(fetch(url, 500), /the body did not end within 500 ms/);
      // Generous: the deadline is 0.5 s; a busy machine may add seconds, never forever.
      assert.ok(performance.now() - started < 15_000);
    } finally {
      await close();
      server.closeAllConnections();
      server.close();
    }
  },
);

test(
  "an endless /metrics body ends the scrape at the cap, not at the memory's end",
  LOAD_TEST,
  async () => {
    const chunk = "x".repeat(64 * 1024);
    const { url, server } = await serve((res) => {
      let open = true;
      const pump = () => {
        while (open && res.write(chunk));
        if (open) res.once("drain", pump);
      };
      pump();
      return () => {
        open = false;
      };
    });
    const { fetch, close } = metricsFetcher();
    try {
      await assert.rejects(fetch(url, 20_000), /the body passed 8388608 bytes/);
    } finally {
      await close();
      server.closeAllConnections();
      server.close();
    }
  },
);
