import { deepEqual, equal } from "node:assert/strict";
import { startFakeModelServer } from "../../tests/fakes/model_server.ts";
import { ModelNameResolver, parseModelListing, probeModels } from "./probe.ts";

/** A port nothing listens on (connections are refused). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("probe: reads ids and max_model_len from a vLLM listing", async () => {
  const fake = await startFakeModelServer({
    models: [{ id: "qwen3-8b", max_model_len: 32768 }, { id: "lora-a" }],
  });
  try {
    deepEqual(await probeModels(fetch, `${fake.url}/models`), [
      { id: "qwen3-8b", max_model_len: 32768 },
      { id: "lora-a" },
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("probe: transport errors, non-2xx, empty and malformed listings are silent null", async () => {
  equal(await probeModels(fetch, `http://127.0.0.1:${closedPort()}/v1/models`), null);
  const fake = await startFakeModelServer({ models: [] });
  try {
    equal(await probeModels(fetch, `${fake.url}/models`), null); // empty listing
    fake.failModels(503);
    equal(await probeModels(fetch, `${fake.url}/models`), null);
    equal(await probeModels(fetch, `${fake.origin}/metrics`), null); // not JSON
  } finally {
    await fake.close();
  }
  const throwing: typeof fetch = () => Promise.reject(new TypeError("boom"));
  equal(await probeModels(throwing, "http://x/v1/models"), null);
});

Deno.test("probe: an aborted probe is a silent null", async () => {
  const fake = await startFakeModelServer();
  try {
    const ctl = new AbortController();
    ctl.abort();
    equal(await probeModels(fetch, `${fake.url}/models`, { signal: ctl.signal }), null);
  } finally {
    await fake.close();
  }
});

Deno.test("probe: listing parser ignores bad entries", () => {
  deepEqual(
    parseModelListing({
      data: [{ id: "a", max_model_len: 0 }, { id: 3 }, null, { id: "" }, {
        id: "b",
        max_model_len: 1.5,
      }],
    }),
    [{ id: "a" }, { id: "b" }],
  );
  equal(parseModelListing({ data: "x" }), null);
  equal(parseModelListing([]), null);
});

Deno.test("resolver: the default sentinel resolves to the first served model, then response.model", () => {
  const r = new ModelNameResolver({
    model: "default",
    hasBaseUrl: true,
    fallbackContextWindow: 8192,
  });
  equal(r.displayName, "default");
  equal(r.contextWindow, 8192);
  equal(
    r.applyListing([{ id: "qwen3-8b", max_model_len: 32768 }, {
      id: "other",
      max_model_len: 4096,
    }]),
    true,
  );
  equal(r.displayName, "qwen3-8b");
  equal(r.contextWindow, 32768);
  equal(r.model, "default"); // still sent verbatim
  // Dedup: the same name again changes nothing visible.
  equal(r.applyResponseModel("qwen3-8b"), false);
  equal(r.applyResponseModel("other"), true);
  equal(r.displayName, "other");
  equal(r.contextWindow, 4096);
  equal(r.applyResponseModel(undefined), false);
});

Deno.test("resolver: a server echoing the default sentinel never replaces the probed name", () => {
  const r = new ModelNameResolver({
    model: "default",
    hasBaseUrl: true,
    fallbackContextWindow: 8192,
  });
  r.applyListing([{ id: "qwen3-8b", max_model_len: 32768 }]);
  equal(r.applyResponseModel("default"), false);
  equal(r.displayName, "qwen3-8b");
  equal(r.contextWindow, 32768);
});

Deno.test("resolver: silent no-ops keep the literal name", () => {
  const r = new ModelNameResolver({
    model: "default",
    hasBaseUrl: true,
    fallbackContextWindow: 8192,
  });
  equal(r.applyListing(null), false);
  equal(r.applyListing([]), false);
  equal(r.displayName, "default");
});

Deno.test("resolver: without base_url the banner shows the literal default", () => {
  const r = new ModelNameResolver({
    model: "default",
    hasBaseUrl: false,
    fallbackContextWindow: 8192,
  });
  equal(r.applyListing([{ id: "x", max_model_len: 1000 }]), false);
  equal(r.applyResponseModel("x"), false);
  equal(r.displayName, "default");
});

Deno.test("resolver: a pinned context_window is never refined", () => {
  const r = new ModelNameResolver({
    model: "default",
    hasBaseUrl: true,
    fallbackContextWindow: 8192,
    pinnedContextWindow: 16000,
  });
  r.applyListing([{ id: "qwen3-8b", max_model_len: 32768 }]);
  equal(r.contextWindow, 16000);
  equal(r.displayName, "qwen3-8b");
});

Deno.test("resolver: a named model keeps its name and takes its own entry's window", () => {
  const r = new ModelNameResolver({
    model: "lora-a",
    hasBaseUrl: true,
    fallbackContextWindow: 8192,
  });
  r.applyListing([{ id: "base", max_model_len: 32768 }, { id: "lora-a", max_model_len: 16384 }]);
  equal(r.displayName, "lora-a");
  equal(r.contextWindow, 16384);
  equal(r.applyResponseModel("base"), false);
  equal(r.displayName, "lora-a");
});

Deno.test("resolver: the per-session cache survives a /model swap back to default", () => {
  const r = new ModelNameResolver({
    model: "default",
    hasBaseUrl: true,
    fallbackContextWindow: 8192,
  });
  r.applyListing([{ id: "qwen3-8b", max_model_len: 32768 }]);
  r.setModel("gpt-x", { hasBaseUrl: true });
  equal(r.displayName, "gpt-x");
  equal(r.contextWindow, 8192);
  r.setModel("default", { hasBaseUrl: true });
  equal(r.displayName, "qwen3-8b");
});

Deno.test("probe: llama-server's window is meta.n_ctx (there is no max_model_len)", async () => {
  const fake = await startFakeModelServer({ models: [{ id: "peer-text.gguf", n_ctx: 12288 }] });
  try {
    const models = await probeModels(fetch, `${fake.url}/models`);
    deepEqual(models, [{ id: "peer-text.gguf", max_model_len: 12288 }]);
    const resolver = new ModelNameResolver({
      model: "default",
      hasBaseUrl: true,
      fallbackContextWindow: 32768,
    });
    resolver.applyListing(models);
    equal(resolver.contextWindow, 12288);
  } finally {
    await fake.close();
  }
  // max_model_len wins when a listing carries both.
  deepEqual(
    parseModelListing({ data: [{ id: "m", max_model_len: 4096, meta: { n_ctx: 8192 } }] }),
    [
      { id: "m", max_model_len: 4096 },
    ],
  );
});
