// The mock as most tests want it: an engine of 1 ms steps without jitter, so a
// test about shape, classes or bookkeeping runs in milliseconds.

import { DEFAULT_PROFILE, type MockProfile } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";

export const QUICK_ENGINE = {
  prefillBaseMs: 1,
  prefillPerTokenMs: 0,
  decodeBaseMs: 1,
  decodePerSeqMs: 0,
  jitter: 0,
} as const;

/** The default profile with the quick engine and these knobs on top. */
export function quickProfile(knobs: Record<string, unknown> = {}): MockProfile {
  return mergeProfile(DEFAULT_PROFILE, { ...QUICK_ENGINE, ...knobs }, "test");
}

/**
 * A load test's node:test timeout: far beyond what it takes on a busy 2-core
 * machine, so that only a hang trips it — and a hang fails the test, not CI.
 */
export const LOAD_TEST = { timeout: 180_000 } as const;
/** The same for the slowest: the bundled action's runs, a capacity gate, six scaling pairs. */
export const SLOW_LOAD_TEST = { timeout: 600_000 } as const;
