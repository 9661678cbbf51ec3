// What the fake model server answers outside the model calls: its GET /v1/models entries (as
// vLLM lists a model, or as llama-server does) and its vLLM-style GET /metrics text.

export interface FakeModel {
  id: string;
  max_model_len?: number;
  /** Listed as llama-server does: `meta.n_ctx` (the started window), no max_model_len. */
  n_ctx?: number;
}

export function modelEntry(m: FakeModel): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    id: m.id,
    object: "model",
    created: 1767225600,
    owned_by: "vllm",
    root: m.id,
    parent: null,
  };
  if (m.max_model_len !== undefined) entry.max_model_len = m.max_model_len;
  if (m.n_ctx !== undefined) {
    // llama-server's listing (tools/server): owned_by llamacpp and a meta block.
    entry.owned_by = "llamacpp";
    delete entry.root;
    delete entry.parent;
    entry.meta = {
      vocab_type: 2,
      n_vocab: 324,
      n_ctx_train: Math.max(32768, m.n_ctx),
      n_embd: 384,
      n_params: 1207296,
      size: 4829184,
      n_ctx: m.n_ctx,
    };
  }
  return entry;
}

export function metricsText(model: string, waiting: number, running: number): string {
  const label = `{engine="0",model_name="${model}"}`;
  return [
    "# HELP vllm:num_requests_running Number of requests in model execution batches.",
    "# TYPE vllm:num_requests_running gauge",
    `vllm:num_requests_running${label} ${running.toFixed(1)}`,
    "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
    "# TYPE vllm:num_requests_waiting gauge",
    `vllm:num_requests_waiting${label} ${waiting.toFixed(1)}`,
    "",
  ].join("\n");
}
