// The real `agent -p` through the LiteLLM proxy 1.106.2 on both wires: scripted streams
// (scripts/peers/litellm_handler.py) framed by LiteLLM itself, `openai/` and `hosted_vllm/`
// bridges to llama-server (behind a pass-through that records which endpoint LiteLLM called),
// its mock rate limit, an unknown model and a wrong key. Where LiteLLM itself is wrong, a test
// pins the upstream behaviour by name, so an upgrade that fixes it fails here and is noticed.
// Registered by tests/e2e/peers_test.ts after the llama-server cases: the proxy starts once
// (about 6 s; figures in peers_kit.ts), in front of the same llama-servers.

import assert from "node:assert/strict";
import { type PeerProbe, peerTest, probes } from "../peers.ts";
import {
  type Peer,
  type RecordedPeer,
  recordPaths,
  runAgainst,
  sharedLlama,
  startLitellm,
  stopAtEnd,
} from "./peers_kit.ts";
import { SMALL } from "./peers_llama_cases.ts";

const WIRES = ["chat_completions", "messages"] as const;
type Provider = (typeof WIRES)[number];
/** LiteLLM's Messages adapter turns any `thinking` into reasoning_effort (see the test below). */
const NO_THINKING = '[thinking]\ntype = "disabled"\n';
/** peer-tool's scripted answer once the tool result is in. */
const ANSWER = "The file says: hello peer.";
const SCRIPTED_TEXT = 'Hello from a scripted LiteLLM stream: "quoted" back\\slash tab\there ' +
  "é 🎉 line\u2028sep done.";

/** peer-sep's scripted reply (scripts/peers/make_gguf.py): U+2028 alone and inside a token. */
const SEPARATED = "Line one\u2028line two. Mid\u2028chunk end.";

const bothPeers: PeerProbe = () => probes.litellm() ?? probes.llamaServer();

interface Started {
  proxy: Peer;
  /** What LiteLLM asked of the peer-tool and peer-sep servers behind the `openai/` bridges. */
  toolPaths: RecordedPeer;
  sepPaths: RecordedPeer;
  /** The small-window llama-server behind `peer-small`. */
  smallPaths: RecordedPeer;
}

let started: Promise<Started> | undefined;
function peers(): Promise<Started> {
  started ??= (async () => {
    const [think, tool, sep, small] = await Promise.all([
      sharedLlama("peer-think"),
      sharedLlama("peer-tool"),
      sharedLlama("peer-sep"),
      sharedLlama("peer-tool", SMALL),
    ]);
    const toolPaths = stopAtEnd(recordPaths(tool));
    const sepPaths = stopAtEnd(recordPaths(sep));
    const smallPaths = stopAtEnd(recordPaths(small));
    const proxy = stopAtEnd(
      await startLitellm({
        "peer-think": think,
        "peer-tool": toolPaths,
        "peer-sep": sepPaths,
        "vllm-peer-sep": { provider: "hosted_vllm", peer: sep },
        "peer-small": smallPaths,
      }),
    );
    return { proxy, toolPaths, sepPaths, smallPaths };
  })();
  return started;
}
async function proxy(): Promise<Peer> {
  return (await peers()).proxy;
}

/** The distinct POST paths among recorded requests. */
function posts(paths: string[]): string[] {
  return [...new Set(paths.filter((p) => p.startsWith("POST ")))];
}

const opts = { sanitizeResources: false, sanitizeOps: false };

function scenario(
  name: string,
  fn: (provider: Provider) => Promise<void>,
  how: { concurrent?: boolean } = {},
): void {
  peerTest(`litellm: ${name} (both wires)`, bothPeers, async () => {
    // One wire after the other: the peers are CPU-bound on a small machine. A scenario that
    // mostly waits (the 429's backoff) runs both wires at once.
    const outcomes: PromiseSettledResult<void>[] = [];
    if (how.concurrent) outcomes.push(...await Promise.allSettled(WIRES.map(fn)));
    else for (const w of WIRES) outcomes.push(...await Promise.allSettled([fn(w)]));
    const failed = outcomes.flatMap((o, i) =>
      o.status === "rejected" ? [`${WIRES[i]}: ${(o.reason as Error)?.stack ?? o.reason}`] : []
    );
    if (failed.length > 0) throw new Error(failed.join("\n\n"));
  }, opts);
}

function journalParts(journal: string): { type: string; text?: string; content?: string }[] {
  return journal.split("\n").filter((l) => l).flatMap((l) => {
    const e = JSON.parse(l) as { message?: { parts?: { type: string }[] } };
    return e.message?.parts ?? [];
  });
}

scenario(
  "a scripted text stream with escapes, emoji, U+2028 (kept on both wires) and cached usage",
  async (provider) => {
    const r = await runAgainst(await proxy(), {
      provider,
      model: "script-text",
      prompt: "Say hello.",
      settingsToml: NO_THINKING,
    });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, SCRIPTED_TEXT);
    assert.equal(r.json.model, "script-text");
    assert.equal(r.json.usage.output_tokens, 12);
    if (provider === "chat_completions") {
      // prompt_tokens 13 with 8 cached: input excludes the cached part.
      assert.equal(r.json.usage.input_tokens, 5);
      assert.equal(r.json.usage.cache_read_tokens, 8);
    }
  },
);

scenario("a scripted tool-call round trip", async (provider) => {
  const r = await runAgainst(await proxy(), {
    provider,
    model: "script-tool",
    prompt: "Read hello.txt.",
    settingsToml: NO_THINKING,
  });
  assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
  assert.equal(r.json.final_text, "The tool said: 1\thello peer");
});

scenario(
  "parallel tool calls with interleaved fragments (mis-framed on /v1/messages: pinned)",
  async (provider) => {
    const r = await runAgainst(await proxy(), {
      provider,
      model: "script-tool2",
      prompt: "Read both files.",
      settingsToml: NO_THINKING,
    });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    const parts = journalParts(r.journal);
    const calls = parts.filter((p) => p.type === "tool_call") as unknown as {
      input: Record<string, unknown>;
      raw_arguments?: string;
    }[];
    const results = parts.filter((p) => p.type === "tool_result").map((p) => p.content ?? "");
    if (provider === "chat_completions") {
      assert.deepEqual(calls.map((c) => c.input), [{ path: "hello.txt" }, { path: "other.txt" }]);
      assert.match(results[1] ?? "", /other peer/);
    } else {
      // Upstream LiteLLM 1.106.2: its Anthropic adapter appends every input_json_delta to the
      // last tool_use block, so block 0 gets nothing and block 1 the two calls' fragments
      // interleaved. The agent no longer runs the garbled call: the model is told what came.
      // When an upgrade frames them right, this fails: expect both files read.
      assert.equal(calls[1]?.raw_arguments, '{"path"{"path": "hell: "otheo.txt"}r.txt"}');
      assert.match(
        results[1] ?? "",
        /^Not run: the arguments of this view call are not valid JSON/,
      );
    }
  },
);

scenario(
  "a tool call through the openai/ bridge to llama-server (Messages sent to /v1/responses: pinned)",
  async (provider) => {
    const { toolPaths } = await peers();
    toolPaths.take();
    const r = await runAgainst(await proxy(), {
      provider,
      model: "peer-tool",
      prompt: "Read hello.txt.",
      settingsToml: NO_THINKING,
    });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, ANSWER);
    const upstream = posts(toolPaths.take());
    if (provider === "chat_completions") {
      assert.deepEqual(upstream, ["POST /v1/chat/completions"]);
    } else {
      // Upstream LiteLLM 1.106.2: /v1/messages for an `openai/` model is bridged to the
      // upstream's Responses API, not to /v1/chat/completions; llama-server happens to serve
      // /v1/responses, a plain Chat Completions backend would answer 404. When an upgrade
      // routes it to /v1/chat/completions, this fails.
      assert.deepEqual(upstream, ["POST /v1/responses"], "LiteLLM changed its Messages route");
    }
  },
);

scenario(
  "U+2028 from llama-server: kept by the openai/ bridge, its chunks dropped by hosted_vllm/ (pinned)",
  async (provider) => {
    const kept = await runAgainst(await proxy(), {
      provider,
      model: "peer-sep",
      prompt: "Say two lines.",
      settingsToml: NO_THINKING,
    });
    assert.equal(kept.code, 0, kept.stderr + JSON.stringify(kept.json));
    assert.equal(kept.json.final_text, SEPARATED);
    const dropped = await runAgainst(await proxy(), {
      provider,
      model: "vllm-peer-sep",
      prompt: "Say two lines.",
      settingsToml: NO_THINKING,
    });
    assert.equal(dropped.code, 0, dropped.stderr + JSON.stringify(dropped.json));
    // Upstream LiteLLM 1.106.2: the hosted_vllm provider reads the upstream's event stream
    // with httpx's aiter_lines(), which splits lines like str.splitlines(), U+2028 included;
    // llama-server writes U+2028 raw inside the JSON, so a `data:` line holding it is cut in
    // two unparsable halves and the chunk is lost (on /v1/messages and /v1/chat/completions
    // alike). The `openai/` provider (the OpenAI SDK's SSE decoder) keeps it, above. When an
    // upgrade fixes it, this fails: expect SEPARATED here too.
    assert.equal(dropped.json.final_text, "Line oneline two. end.", "LiteLLM now keeps U+2028");
  },
);

scenario(
  "truncation through the openai/ bridge (a cap under 16 raised on /v1/messages: pinned)",
  async (provider) => {
    const text = await runAgainst(await proxy(), {
      provider,
      model: "peer-sep",
      prompt: "Say two lines.",
      settingsToml: NO_THINKING,
      env: { AGENT_MAX_TOKENS: "3" },
    });
    if (provider === "messages") {
      // Upstream LiteLLM 1.106.2: bridging /v1/messages to the upstream's /v1/responses, it
      // sends max_output_tokens 16 for max_tokens 3 (the Responses API's minimum), so the
      // 6-token reply is not cut. (llama-server's /v1/responses would also report a cut reply
      // as "completed", not "incomplete".) When an upgrade keeps the cap, this fails: expect
      // the chat_completions outcome below.
      assert.equal(text.code, 0, text.stderr + JSON.stringify(text.json));
      assert.equal(text.json.final_text, SEPARATED, "LiteLLM now keeps a cap under 16");
      return;
    }
    assert.equal(text.code, 1, text.stderr + JSON.stringify(text.json));
    assert.equal(text.json.done_reason, "truncated");
    assert.equal(text.json.stop_reason, "max_tokens");
    assert.equal(text.json.final_text, "Line one\u2028line two.");
    const tool = await runAgainst(await proxy(), {
      provider,
      model: "peer-tool",
      prompt: "Read hello.txt.",
      settingsToml: NO_THINKING,
      env: { AGENT_MAX_TOKENS: "3" },
    });
    const results = journalParts(tool.journal).filter((p) => p.type === "tool_result");
    assert.match(
      results[0]?.content ?? "",
      /^Not run: the arguments of this view call were cut off by max_tokens/,
      tool.stderr + JSON.stringify(tool.json),
    );
  },
);

scenario(
  "a small window behind the proxy: the forwarded overflow 400 is recovered from",
  async (provider) => {
    // LiteLLM's /v1/models carries no window (no meta.n_ctx, no max_model_len), so the agent
    // assumes its 32768 default; a file read too big for llama-server's real 12288 comes back
    // as the server's overflow 400 through the proxy, and the agent must cut and retry.
    const { smallPaths } = await peers();
    smallPaths.take();
    const r = await runAgainst(await proxy(), {
      provider,
      model: "peer-small",
      prompt: "Read hello.txt.",
      settingsToml: NO_THINKING,
      files: { "hello.txt": "hello peer\n" + "filler line of the big file\n".repeat(400) },
    });
    const upstream = smallPaths.takeAnswered().filter((p) => p.startsWith("POST "));
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json) + upstream.join(", "));
    assert.equal(r.json.final_text, ANSWER);
    assert.ok(upstream.some((p) => p.endsWith(" 400")), `no overflow 400: ${upstream}`);
    assert.ok(r.journal.includes('"type":"compaction"'), "the shortened history was recorded");
    assert.match(r.journal, /\[cut: this tool result was/);
  },
);

scenario(
  "reasoning through the bridge (dropped on the Messages adapter: pinned)",
  async (provider) => {
    const r = await runAgainst(await proxy(), {
      provider,
      model: "peer-think",
      prompt: "Say hello.",
      settingsToml: NO_THINKING,
    });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, "Hello from a tiny scripted llama.");
    const reasoning = journalParts(r.journal).filter((p) => p.type === "reasoning");
    if (provider === "chat_completions") {
      assert.match(reasoning[0]?.text ?? "", /The user wants a greeting\./);
    } else {
      // Upstream LiteLLM 1.106.2: its /v1/messages adapter drops the upstream's
      // reasoning_content. When an upgrade passes it on, this fails: expect a thinking block.
      assert.equal(reasoning.length, 0, "LiteLLM now forwards reasoning on /v1/messages");
    }
  },
);

scenario("429 from the proxy: retried, then an explained error", async (provider) => {
  const r = await runAgainst(await proxy(), {
    provider,
    model: "mock-ratelimit",
    prompt: "hi",
    settingsToml: NO_THINKING,
    ownWorkdir: true, // both wires at once
  });
  assert.equal(r.code, 1);
  assert.match(r.json.error ?? "", /^429 from POST .*Gave up after 4 attempts; try again later\./s);
  assert.ok(!(r.json.error ?? "").includes(".."), r.json.error);
}, { concurrent: true }); // 7 s of real backoff (1 + 2 + 4 s) per wire, spent waiting

scenario(
  'the sentinel "default" refused with 400: the served models are named',
  async (provider) => {
    const r = await runAgainst(await proxy(), {
      provider,
      prompt: "hi",
      settingsToml: NO_THINKING,
    });
    assert.equal(r.code, 1);
    assert.match(
      r.json.error ?? "",
      /^the server does not accept the model "default"; set AGENT_MODEL to one of: .*script-text/,
    );
    assert.equal(r.json.model, "default", "no served model answered");
  },
);

scenario("a wrong key", async (provider) => {
  const r = await runAgainst(await proxy(), {
    provider,
    model: "script-text",
    prompt: "hi",
    key: "sk-wrong",
    settingsToml: NO_THINKING,
  });
  assert.equal(r.code, 1);
  // Upstream LiteLLM 1.106.2 without a database answers an unknown key 400 "No connected db."
  // rather than 401; the wire explains it as a key problem.
  assert.match(r.json.error ?? "", /No connected db\. A LiteLLM proxy .* check the API key/);
});

peerTest(
  "litellm (messages): a thinking field becomes reasoning_effort; the error names the setting",
  bothPeers,
  async () => {
    // The default thinking.type (adaptive) sends `thinking`; LiteLLM turns it into
    // reasoning_effort, which the scripted provider does not list (400).
    const r = await runAgainst(await proxy(), {
      provider: "messages",
      model: "script-text",
      prompt: "hi",
    });
    assert.equal(r.code, 1);
    assert.match(r.json.error ?? "", /reasoning_effort/);
    assert.match(r.json.error ?? "", /Set thinking\.type = "disabled"/);
  },
  opts,
);

peerTest(
  "litellm (messages): a mock_response is answered as plain JSON to a stream request (pinned)",
  bothPeers,
  async () => {
    // Upstream LiteLLM 1.106.2: /v1/messages with stream: true and a string mock_response
    // answers application/json, not an event stream. When fixed, this run succeeds.
    const r = await runAgainst(await proxy(), {
      provider: "messages",
      model: "mock-text",
      prompt: "hi",
      settingsToml: NO_THINKING,
    });
    assert.equal(r.code, 1, "LiteLLM now streams mock responses on /v1/messages");
    assert.match(r.json.error ?? "", /got JSON/);
  },
  opts,
);
