// The generated documentation: action.yml (its inputs from the settings
// table, its outputs from src/github/outputs.ts) and docs/inputs.md (every
// setting of the action and of each command, with its default, what it
// accepts and one line). `npm run docs` writes them; test/docs.test.ts checks
// that the committed files are what this writes.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { COMMANDS } from "../src/commands/registry.ts";
import { describeAccepts } from "../src/config/accepts.ts";
import {
  ACTION_INPUTS,
  ACTION_SETTINGS,
  commandSettings,
  type Setting,
  type SettingScope,
} from "../src/config/settings.ts";
import { ACTION_OUTPUTS } from "../src/github/outputs.ts";

const ROOT = join(import.meta.dirname, "..");

const ACTION_HEAD = `name: llm-perf-gate
description: >-
  Blocks a pull request when a change to an LLM serving stack (runtime upgrade, quantization,
  serving flags) makes it slower or less reliable: interleaved open-loop A/B trials, a paired
  noise-aware verdict, one sticky PR comment and a job summary.
author: llm-perf-gate maintainers
branding:
  icon: activity
  color: orange

# Generated from the settings table by \`npm run docs\`: do not edit by hand.
# Defaults live in the code (each description says it), not as input defaults,
# so that a value from the \`config\` file is not overridden by an input default.
`;

/** One line, as action.yml and the inputs table say it. */
export function describeSetting(s: Setting): string {
  const def = s.default === undefined ? "" : ` Default ${s.default}.`;
  const secret = s.secret ? " Masked; never written." : "";
  return `${s.help} Accepts ${describeAccepts(s.accepts)}.${def}${secret}`;
}

export function actionYml(): string {
  const inputs = Object.fromEntries(
    ACTION_SETTINGS.map((s) => [s.name, { description: describeSetting(s) }]),
  );
  const outputs = Object.fromEntries(ACTION_OUTPUTS.map(([n, d]) => [n, { description: d }]));
  const body = stringify(
    { inputs, outputs, runs: { using: "node24", main: "dist/index.js" } },
    {
      lineWidth: 0,
    },
  );
  return `${ACTION_HEAD}\n${body}`;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

function table(settings: readonly Setting[], flags: boolean): string {
  const rows = settings.map((s) => {
    const name = flags
      ? [s.name, ...(s.aliases ?? [])].map((n) => `\`--${n}\``).join(", ")
      : `\`${s.name}\``;
    const def = s.default === undefined ? "–" : `\`${s.default}\``;
    return `| ${name} | ${def} | ${cell(describeAccepts(s.accepts))} | ${cell(s.help)}${s.secret ? " A secret: masked, never written." : ""} |`;
  });
  return ["| setting | default | accepts | what it does |", "|---|---|---|---|", ...rows].join(
    "\n",
  );
}

const GROUPS: { scope: SettingScope; title: string }[] = [
  { scope: "gate", title: "The gate" },
  { scope: "trial", title: "Each trial (the gate's arms, `measure`, every sweep point)" },
  { scope: "sweep", title: "Re-runs and the capacity sweep" },
  { scope: "action", title: "The action only" },
  { scope: "lanes", title: "Lanes (`mode: burst`, `burst`, `lanes-report`)" },
];

export function inputsMarkdown(): string {
  const parts = [
    "# Settings",
    "",
    "Generated from the settings table (`src/config/table-*.ts`) by `npm run docs`; the",
    "same table gives `llm-perf-gate <command> --help`, the action's inputs and every",
    "check of a value. A setting's name is the action input, the config file key",
    "(kebab-case; secrets are refused in a file) and the CLI flag (`--name value`,",
    "`--name=value`; a switch also `--name`).",
    "",
    "## Action inputs and `gate` flags",
  ];
  for (const g of GROUPS) {
    const settings = ACTION_SETTINGS.filter((s) => s.scope === g.scope);
    parts.push("", `### ${g.title}`, "", table(settings, false));
  }
  parts.push("", "## Commands", "");
  for (const c of COMMANDS) {
    const own = commandSettings(c.name).filter(
      (s) => !ACTION_INPUTS.includes(s.name) || c.name !== "gate",
    );
    parts.push(`### \`${c.usage}\``, "", c.summary, "");
    if (c.name === "gate")
      parts.push("Every action input above but `mode`, `github-token` and the lanes ones.", "");
    else if (own.length === 0) parts.push("No flags.", "");
    else parts.push(table(own, true), "");
  }
  return `${parts.join("\n").trimEnd()}\n`;
}

if (import.meta.main) {
  writeFileSync(join(ROOT, "action.yml"), actionYml());
  writeFileSync(join(ROOT, "docs/inputs.md"), inputsMarkdown());
  console.log("wrote action.yml and docs/inputs.md");
}
