import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError } from "../../src/common/errors.ts";
import { parseRate } from "../../src/config/rate.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { arrivalOffsetsMs, describeArrivals } from "../../src/workload/arrivals.ts";
import { buildWorkload } from "../../src/workload/plan.ts";
import { Rng } from "../../src/workload/rng.ts";
import { type RateSegment, shapeArrivals, timesOf } from "../../src/workload/shape.ts";

const SURGE: RateSegment[] = [
  { fromPerS: 10, toPerS: 10, durationS: 30 },
  { fromPerS: 15, toPerS: 15, durationS: 30 },
  { fromPerS: 10, toPerS: 20, durationS: 60 },
];

const countIn = (xs: number[], fromMs: number, toMs: number) =>
  xs.filter((t) => t >= fromMs && t < toMs).length;

test("a shape's expected arrivals: steps and a ramp's area", () => {
  assert.equal(shapeArrivals(SURGE), 300 + 450 + 900);
});

test("the time change inverts the expected arrivals, in steps and on a ramp", () => {
  // Λ = 300 ends the first step; 750 the second; on the ramp Λ(t) = 10t + t²/12.
  const [a, b, c, d] = timesOf(SURGE, [150, 300, 750, 750 + 10 * 30 + 900 / 12]);
  assert.equal(a, 15);
  assert.equal(b, 30);
  assert.equal(c, 60);
  assert.ok(Math.abs((d ?? 0) - 90) < 1e-9, `ramp: ${d}`);
});

test("a constant process on a shape sends exactly the rate in each step", () => {
  const spec = { kind: "shaped", process: "constant", burstiness: 1, segments: SURGE } as const;
  const offsets = arrivalOffsetsMs({ ...spec, ratePerS: 0 }, 1000, 0, new Rng(1));
  assert.equal(offsets.length, 1650);
  assert.equal(countIn(offsets, 1000, 31_000), 300);
  assert.equal(countIn(offsets, 31_000, 61_000), 450);
  // The ramp's first half carries 10·30 + 5·30/2… = 375, its second 525.
  assert.equal(countIn(offsets, 61_000, 91_000), 375);
  assert.equal(countIn(offsets, 91_000, 121_000), 525);
});

test("a Poisson shape: exactly Λ arrivals, each step near its own rate", () => {
  const spec = { kind: "shaped", process: "poisson", burstiness: 1, segments: SURGE } as const;
  const offsets = arrivalOffsetsMs({ ...spec, ratePerS: 0 }, 0, 0, new Rng(7));
  assert.equal(offsets.length, 1650);
  assert.ok(offsets.every((t, i) => i === 0 || t >= (offsets[i - 1] ?? 0)));
  // sd of a step's count ≈ √n: 4 sd of room.
  for (const [from, to, n] of [
    [0, 30_000, 300],
    [30_000, 60_000, 450],
    [60_000, 120_000, 900],
  ] as const) {
    const got = countIn(offsets, from, to);
    assert.ok(Math.abs(got - n) < 4 * Math.sqrt(n), `${from}-${to} ms: ${got}, expected ≈ ${n}`);
  }
  assert.deepEqual(offsets, arrivalOffsetsMs({ ...spec, ratePerS: 0 }, 0, 0, new Rng(7)));
});

test("rate takes a number or a shape; a bad part is named with what is accepted", () => {
  assert.deepEqual(parseRate("rate", "12.5"), { ratePerS: 12.5 });
  assert.deepEqual(parseRate("rate", "10 for 30s, 10 to 20 over 1m"), {
    segments: [
      { fromPerS: 10, toPerS: 10, durationS: 30 },
      { fromPerS: 10, toPerS: 20, durationS: 60 },
    ],
  });
  const bad = (raw: string, message: RegExp) =>
    assert.throws(
      () => parseRate("rate", raw),
      (e: unknown) => e instanceof InputError && message.test(e.message),
    );
  bad("10 for 30s, 15 during 30s", /part "15 during 30s" is neither "RATE for DURATION"/);
  bad("10 for 0s", /part "10 for 0s"/);
  bad("20000 for 1s", /rates in \[0, 10000\]/);
  bad("0 for 10s, 0 to 0 over 5s", /not 0 throughout/);
  bad("0", /rate = "0" is not accepted; expected requests per second \(> 0/);
});

test("a shaped rate sets the window: warm-up at its first rate, a duration that disagrees refused", () => {
  const raw = { url: "http://127.0.0.1:8000/v1", model: "m", warmup: "2s" };
  const o = parseTrialOptions({ ...raw, rate: "5 for 3s, 20 for 2s", arrival: "constant" });
  assert.equal(o.workload.durationS, 5);
  assert.match(
    describeArrivals(o.workload.arrival),
    /constant 5 req\/s for 3 s, 20 req\/s for 2 s/,
  );
  const w = buildWorkload(o.workload);
  assert.equal(w.warmupCount, 10, "2 s at the first rate");
  assert.equal(w.offsetsMs.length - w.warmupCount, 15 + 40);
  assert.throws(
    () => parseTrialOptions({ ...raw, rate: "5 for 3s, 20 for 2s", duration: "30s" }),
    /duration = 30 s and the rate's shape \(5 s\) disagree/,
  );
  assert.equal(
    parseTrialOptions({ ...raw, rate: "5 for 3s, 20 for 2s", duration: "5s" }).workload.durationS,
    5,
  );
});
