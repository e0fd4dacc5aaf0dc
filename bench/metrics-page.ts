// A /metrics page the size of a real vLLM V1 server's with two engines: the
// mock's vLLM series with their buckets filled, plus the other histograms and
// counters such a server exposes (prompt and generation token histograms,
// prefill / decode / inference times, iteration tokens, request params…), each
// per engine. About 1,100 lines, 120 kB.

import { EngineMetrics } from "../src/mock/metrics.ts";

export function vllmPage(): string {
  const m = new EngineMetrics();
  for (let i = 0; i < 5000; i++) {
    m.ttft.observe(0.02 + (i % 97) / 200);
    m.itl.observe(0.005 + (i % 31) / 1000);
    m.queueTime.observe((i % 13) / 20);
    m.e2e.observe(1 + (i % 17) / 3);
  }
  const base = m.render("vllm", "meta-llama/Llama-3.1-8B-Instruct", {
    running: 12,
    waiting: 3,
    kvCacheUsage: 0.41,
  });
  // The same series for a second engine, and the families the mock does not model.
  const second = base.replace(/engine="0"/g, 'engine="1"').replace(/^# .*\n/gm, "");
  const extra: string[] = [];
  const names = [
    "request_prompt_tokens",
    "request_generation_tokens",
    "request_params_n",
    "request_params_max_tokens",
    "request_max_num_generation_tokens",
    "iteration_tokens_total",
    "request_prefill_time_seconds",
    "request_decode_time_seconds",
    "request_inference_time_seconds",
    "request_time_per_output_token_seconds",
    "time_per_output_token_seconds",
  ];
  const bounds = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000];
  for (const name of names) {
    extra.push(`# HELP vllm:${name} Histogram of ${name}.`, `# TYPE vllm:${name} histogram`);
    for (const engine of ["0", "1"]) {
      const labels = `engine="${engine}",model_name="meta-llama/Llama-3.1-8B-Instruct"`;
      extra.push(`vllm:${name}_sum{${labels}} 123456.0`);
      for (const [i, b] of bounds.entries())
        extra.push(`vllm:${name}_bucket{le="${b}.0",${labels}} ${(i + 1) * 300}.0`);
      extra.push(
        `vllm:${name}_bucket{le="+Inf",${labels}} 5000.0`,
        `vllm:${name}_count{${labels}} 5000.0`,
      );
    }
  }
  for (const reason of ["stop", "length", "abort"])
    extra.push(
      `vllm:request_success_total{engine="0",finished_reason="${reason}",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1000.0`,
    );
  // Process and Python collectors every prometheus_client page carries.
  for (const g of [
    "python_gc_objects_collected_total",
    "process_resident_memory_bytes",
    "process_cpu_seconds_total",
  ])
    extra.push(`# TYPE ${g} gauge`, `${g} 12345.0`);
  return `${base}${second}${extra.join("\n")}\n`;
}
