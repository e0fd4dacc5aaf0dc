// A quality answer a server never stops sending: the runner stops at its cap
// and names it — the server's doing, not a failed connection.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { runSuite } from "../../src/quality/run.ts";
import { builtinSuite } from "../../src/quality/suite.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

test(
  "an endless non-streamed answer ends at the cap as transport.too_large",
  LOAD_TEST,
  async () => {
    const chunk = Buffer.alloc(1 << 20, " ");
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" });
      // 1 MiB at a time for as long as the client reads.
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", more);
      };
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const target = parseTrialOptions({
        url: `http://127.0.0.1:${port}/v1`,
        model: "m",
        rate: "1",
        "metrics-url": "none",
      }).target;
      const suite = builtinSuite();
      const one = { ...suite, cases: suite.cases.filter((c) => c.stream === false).slice(0, 1) };
      assert.equal(one.cases.length, 1);
      const [run] = await runSuite(target, one, { vllmSampling: false, timeoutS: 30 });
      const transport = run?.attempts[0]?.answer.transport ?? [];
      assert.deepEqual(transport, ["transport.too_large"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  },
);
