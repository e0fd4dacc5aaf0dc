// The settings of the gate's phases besides its pairs: the servers it starts,
// the quality suite, and the capacity sweep.

import type { CapacityOptions } from "../capacity/run.ts";
import { ARMS } from "../common/arms.ts";
import { errorMessage, InputError, looksLikeCredential, shownValue } from "../common/errors.ts";
import type { FileKind } from "../common/files.ts";
import type { ContractOptions } from "../contract/options.ts";
import { parseContractSelection } from "../contract/selection.ts";
import type { QualityOptions } from "../quality/options.ts";
import { builtinSuite, parseSuite } from "../quality/suite.ts";
import { RESTART_POLICIES, type ServerSettings } from "../servers/lifecycle.ts";
import {
  defaulted,
  given,
  type RawSettings,
  readBoolean,
  readChoice,
  readNumber,
} from "./settings.ts";
import { checkSweepLoad, parseSweepSettings } from "./sweep.ts";
import type { ReadFile } from "./workload.ts";

export function parseServerSettings(raw: RawSettings): ServerSettings {
  const commands: ServerSettings["commands"] = {};
  for (const arm of ARMS) {
    const start = given(raw, `${arm}-start`);
    const stop = given(raw, `${arm}-stop`);
    if (stop !== undefined && start === undefined) {
      throw new InputError(
        `${arm}-stop is set without ${arm}-start: the gate only stops what it started`,
      );
    }
    if (start !== undefined) commands[arm] = { start, stop };
  }
  return {
    commands,
    restart: readChoice(raw, "restart", RESTART_POLICIES),
    readyTimeoutS: readNumber(raw, "ready-timeout"),
    logDir: defaulted(raw, "server-log-dir"),
  };
}

/** The file a builtin | none | FILE setting names, read; refused naming the setting and what it accepts. */
export function readChosenFile(
  setting: string,
  path: string,
  kind: FileKind,
  readFile: ReadFile,
): string {
  try {
    return readFile(path, kind);
  } catch (error) {
    // The file system's own message names the path: never when it looks like a key.
    const why = looksLikeCredential(path)
      ? errorMessage(error).replaceAll(path, "(the value)")
      : errorMessage(error);
    throw new InputError(
      `${setting} = ${shownValue(path)} cannot be read: ${why}; accepted: a file path, builtin or none`,
    );
  }
}

export function parseQuality(raw: RawSettings, readFile: ReadFile): QualityOptions | undefined {
  // The rule is checked even with no suite: every value is validated, used or not.
  const rule = {
    alpha: readNumber(raw, "quality-alpha"),
    minEffect: readNumber(raw, "quality-min-effect"),
    largeEffect: readNumber(raw, "quality-large-effect"),
    confirmReruns: readNumber(raw, "quality-confirm-reruns"),
  };
  const vllmSampling = readBoolean(raw, "quality-vllm-sampling");
  const which = defaulted(raw, "quality-suite");
  if (which === "none") return undefined;
  if (which === "builtin") return { suite: builtinSuite(), vllmSampling, rule };
  const content = readChosenFile("quality-suite", which, "quality suite", readFile);
  return { suite: parseSuite(content, which), vllmSampling, rule };
}

/** `contract`: the builtin probes, none, or a file choosing among them. */
export function parseContract(raw: RawSettings, readFile: ReadFile): ContractOptions | undefined {
  const which = defaulted(raw, "contract");
  if (which === "none") return undefined;
  if (which === "builtin") return { source: "builtin", selection: { include: [], exclude: [] } };
  const content = readChosenFile("contract", which, "contract file", readFile);
  return { source: which, selection: parseContractSelection(content, which) };
}

/** Settings that only a capacity gate uses: given without it, they would be silently ignored. */
const CAPACITY_ONLY = [
  "sync-requests",
  "offline-requests",
  "sweep-points",
  "capacity-resolution",
  "min-attainment",
  "max-duration",
  "max-capacity-drop",
  "gate-rate-fraction",
] as const;

export function parseCapacity(raw: RawSettings): CapacityOptions | undefined {
  if (!readBoolean(raw, "capacity")) {
    const stray = CAPACITY_ONLY.find((name) => given(raw, name) !== undefined);
    if (stray !== undefined) {
      throw new InputError(
        `${stray} is set, but capacity is not: it is used only by a capacity gate (set capacity: true, or remove ${stray})`,
      );
    }
    return undefined;
  }
  checkSweepLoad(raw, "with capacity");
  return {
    sweep: parseSweepSettings(raw),
    maxCapacityDrop: readNumber(raw, "max-capacity-drop"),
    rateFraction: readNumber(raw, "gate-rate-fraction"),
  };
}
