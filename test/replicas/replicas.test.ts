// The replicas source: its three forms parsed and described without secrets,
// one reading of each (stand-ins for the query and the command, and a real
// command), and a reading that makes no sense named with what came.

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ReadDeps, readReplicas, runCommand } from "../../src/replicas/read.ts";
import { ReplicaSampler } from "../../src/replicas/sampler.ts";
import { describeReplicasSource, parseReplicasSource } from "../../src/replicas/source.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const PAGE = "http://127.0.0.1:9/metrics";

test("the three forms parse; a bad one is named with what is accepted", LOAD_TEST, () => {
  assert.deepEqual(parseReplicasSource("s", "prom:http://prom:9090/api/v1/query?query=up", PAGE), {
    kind: "prom",
    url: "http://prom:9090/api/v1/query?query=up",
  });
  assert.deepEqual(parseReplicasSource("s", "metric:replicas", PAGE), {
    kind: "metric",
    name: "replicas",
    url: PAGE,
  });
  assert.deepEqual(parseReplicasSource("s", "cmd:kubectl get deploy x", PAGE), {
    kind: "cmd",
    command: "kubectl get deploy x",
  });
  assert.equal(parseReplicasSource("s", "none", PAGE), null);
  assert.throws(
    () => parseReplicasSource("s", "ftp:x", PAGE),
    /s: a value of the form "ftp:…" is not accepted \(the value is not shown\); expected prom:URL/,
  );
  // A command's token never reaches an error, nor the source's name in a report.
  assert.throws(
    () => parseReplicasSource("s", "prom:not a url?token=hunter2", PAGE),
    (e: Error) => !e.message.includes("hunter2"),
  );
  assert.throws(() => parseReplicasSource("s", "metric:1bad", PAGE), /not accepted/);
  assert.throws(() => parseReplicasSource("s", "metric:replicas", null), /metrics-url is none/);
  assert.throws(
    () => parseReplicasSource("s", "prom:http://u:secret@prom/q", PAGE),
    (e: Error) => /credentials/.test(e.message) && !e.message.includes("secret"),
  );
});

test(
  "a source is described without what may be a secret: a query's host, a command's first word",
  LOAD_TEST,
  () => {
    const cmd = parseReplicasSource("s", "cmd:kubectl --token=abc123 get deploy", PAGE);
    const prom = parseReplicasSource("s", "prom:http://prom:9090/api/v1/query?query=x&key=k", PAGE);
    assert.ok(cmd && prom);
    assert.equal(describeReplicasSource(cmd), "cmd:kubectl …");
    assert.equal(describeReplicasSource(prom), "prom:prom:9090");
    const env = parseReplicasSource("s", "cmd:TOKEN=abc123 ./count.sh --x", PAGE);
    assert.ok(env);
    assert.equal(describeReplicasSource(env), "cmd:./count.sh …");
  },
);

const deps = (body: string, out = ""): ReadDeps => ({
  fetchText: async () => body,
  runCommand: async () => out,
});

test(
  "a reading: a vector's values summed, a metric summed over its series, a command's integer",
  LOAD_TEST,
  async () => {
    const vector = JSON.stringify({
      status: "success",
      data: {
        resultType: "vector",
        result: [
          { metric: {}, value: [1, "2"] },
          { metric: {}, value: [1, "1"] },
        ],
      },
    });
    assert.equal(await readReplicas({ kind: "prom", url: "http://p/q" }, deps(vector)), 3);
    const page = '# TYPE replicas gauge\nreplicas{pool="a"} 2\nreplicas{pool="b"} 2\nother 9\n';
    assert.equal(
      await readReplicas({ kind: "metric", name: "replicas", url: PAGE }, deps(page)),
      4,
    );
    assert.equal(await readReplicas({ kind: "cmd", command: "x" }, deps("", " 5\n")), 5);
  },
);

test(
  "a reading that makes no sense is named with what came, never taken as a count",
  LOAD_TEST,
  async () => {
    const cmd = { kind: "cmd", command: "x" } as const;
    await assert.rejects(
      readReplicas(cmd, deps("", "banana\n")),
      /printed "banana", not an integer/,
    );
    await assert.rejects(readReplicas(cmd, deps("", "-1")), /not an integer/);
    const prom = { kind: "prom", url: "http://p/q" } as const;
    await assert.rejects(readReplicas(prom, deps("<html>")), /not Prometheus's JSON/);
    const empty = JSON.stringify({ status: "success", data: { resultType: "vector", result: [] } });
    await assert.rejects(readReplicas(prom, deps(empty)), /no series/);
    const half = JSON.stringify({
      status: "success",
      data: { resultType: "scalar", result: [1, "1.5"] },
    });
    await assert.rejects(readReplicas(prom, deps(half)), /not a count of replicas/);
    await assert.rejects(
      readReplicas({ kind: "metric", name: "replicas", url: PAGE }, deps("up 1\n")),
      /has no metric replicas/,
    );
  },
);

test("a real command: its output read, a failing one and a slow one named", LOAD_TEST, async () => {
  assert.equal((await runCommand("echo 3", 5000)).trim(), "3");
  await assert.rejects(runCommand("exit 3", 5000), /exited with status 3/);
  await assert.rejects(runCommand("sleep 5", 200), /did not end within 200 ms/);
});

test(
  "the sampler stops at the first bad reading: named once, no count guessed",
  LOAD_TEST,
  async () => {
    let n = 0;
    const sampler = new ReplicaSampler(
      { kind: "cmd", command: "x" },
      { fetchText: async () => "", runCommand: async () => (++n === 1 ? "2" : "banana") },
      () => n * 1000,
    );
    sampler.start();
    await new Promise((r) => setTimeout(r, 2500));
    const record = await sampler.stop();
    assert.deepEqual(sampler.samples, [{ atMs: 0, replicas: 2 }]);
    assert.equal(record.samples, 1);
    assert.match(
      record.error ?? "",
      /^the replicas source cmd:x … printed "banana", not an integer/,
    );
    assert.equal(n, 2);
  },
);
