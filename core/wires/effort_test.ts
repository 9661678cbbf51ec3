import { deepEqual, equal, ok, throws } from "node:assert/strict";
import {
  checkEffort,
  effortBackend,
  effortPatch,
  effortVocabulary,
  endpointTier,
  InvalidEffortError,
} from "./effort.ts";

const messages = { wire: "messages", tier: "self_hosted" } as const;
const mainstream = { wire: "chat_completions", tier: "mainstream" } as const;
const firstParty = { wire: "chat_completions", tier: "first_party" } as const;
const selfHosted = { wire: "chat_completions", tier: "self_hosted" } as const;

Deno.test("effort row: Messages wire (all endpoints) → output_config.effort", () => {
  for (const tier of ["first_party", "mainstream", "self_hosted"] as const) {
    const v = effortVocabulary({ wire: "messages", tier });
    deepEqual(v.levels, ["low", "medium", "high", "xhigh", "max"]);
    equal(v.knob, "output_config.effort");
  }
  deepEqual(effortPatch(messages, "xhigh"), { output_config: { effort: "xhigh" } });
  deepEqual(effortPatch(messages, "max"), { output_config: { effort: "max" } });
});

Deno.test("effort row: Chat Completions to a mainstream hosted endpoint → reasoning_effort", () => {
  deepEqual(effortVocabulary(mainstream).levels, ["low", "medium", "high"]);
  equal(effortVocabulary(mainstream).knob, "reasoning_effort");
  deepEqual(effortPatch(mainstream, "medium"), { reasoning_effort: "medium" });
  throws(() => effortPatch(mainstream, "xhigh"), InvalidEffortError);
});

Deno.test("effort row: Chat Completions to a first-party preset → reasoning_effort, auto unset", () => {
  deepEqual(effortVocabulary(firstParty).levels, [
    "auto",
    "max",
    "xhigh",
    "high",
    "medium",
    "low",
    "minimal",
    "none",
  ]);
  deepEqual(effortPatch(firstParty, "minimal"), { reasoning_effort: "minimal" });
  deepEqual(effortPatch(firstParty, "none"), { reasoning_effort: "none" });
  deepEqual(effortPatch(firstParty, "auto"), {});
});

Deno.test("effort row: Chat Completions to a self-hosted server → enable_thinking, auto unset", () => {
  deepEqual(effortVocabulary(selfHosted).levels, ["auto", "on", "off"]);
  equal(effortVocabulary(selfHosted).knob, "chat_template_kwargs.enable_thinking");
  deepEqual(effortPatch(selfHosted, "on"), { chat_template_kwargs: { enable_thinking: true } });
  deepEqual(effortPatch(selfHosted, "off"), { chat_template_kwargs: { enable_thinking: false } });
  deepEqual(effortPatch(selfHosted, "auto"), {});
});

Deno.test("effort: no level means the server default (nothing sent)", () => {
  for (const b of [messages, mainstream, firstParty, selfHosted]) {
    deepEqual(effortPatch(b, undefined), {});
  }
});

Deno.test("effort: an invalid level is a typed error listing the valid levels", () => {
  throws(() => checkEffort(selfHosted, "high"), (e) => {
    ok(e instanceof InvalidEffortError);
    equal(e.name, "InvalidEffortError");
    equal(e.level, "high");
    deepEqual(e.valid, ["auto", "on", "off"]);
    ok(e.message.includes("self-hosted"));
    ok(e.message.includes("auto, on, off"));
    return true;
  });
  throws(() => effortPatch(messages, "auto"), /valid levels: low, medium, high, xhigh, max/);
});

Deno.test("effort: endpoint classification by preset and host", () => {
  equal(endpointTier({ base_url: "http://localhost:8000/v1", preset: "acme" }), "first_party");
  equal(endpointTier({ base_url: "https://api.openai.com/v1" }), "mainstream");
  equal(endpointTier({ base_url: "https://openrouter.ai/api/v1" }), "mainstream");
  equal(endpointTier({ base_url: "https://x.openai.azure.com/openai" }), "mainstream");
  equal(endpointTier({ base_url: "http://127.0.0.1:8000/v1" }), "self_hosted");
  equal(endpointTier({ base_url: "http://gpu-box.lan:8000/v1" }), "self_hosted");
  equal(endpointTier({ base_url: "not a url" }), "self_hosted");
  deepEqual(
    effortBackend({ provider: "messages", base_url: "http://h", auth_style: "x-api-key" }),
    { wire: "messages", tier: "self_hosted" },
  );
});
