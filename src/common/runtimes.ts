// The serving runtimes the server view knows, and their names as people write them.

export const RUNTIMES = ["vllm", "sglang", "tgi", "llamacpp"] as const;
export type Runtime = (typeof RUNTIMES)[number];

export const RUNTIME_LABELS: Record<Runtime, string> = {
  vllm: "vLLM",
  sglang: "SGLang",
  tgi: "TGI",
  llamacpp: "llama.cpp server",
};
