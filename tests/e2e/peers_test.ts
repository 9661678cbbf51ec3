// The model-server peer suite: the real `agent -p` through llama.cpp's llama-server
// (peers_llama_cases.ts) and through the LiteLLM proxy in front of it (peers_litellm_cases.ts),
// as one test module so both run on one set of llama-servers, started once for the suite
// (peers_kit.ts sharedLlama): each model loads once and the prompt caches the direct cases
// warm are reused behind the proxy. Deno gives each test module its own isolate, so two
// modules could not share them.

import "./peers_llama_cases.ts";
import "./peers_litellm_cases.ts";
import { stopPeers } from "./peers_kit.ts";

// Last, after every case above; were it filtered out, the kit kills the peers at unload.
Deno.test({
  name: "peers: stop the peers",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: stopPeers,
});
