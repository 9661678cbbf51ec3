// The loop against the real wires and the HTTP fake model server, on both wires: what the
// real peers (llama-server, LiteLLM) showed — calls cut off by max_tokens, truncated
// answers, empty turns, context overflow, a refused `default` model.
import assert from "node:assert/strict";
import { type LoopConfig, type LoopEvent, runLoop } from "./loop.ts";
import { createWire } from "../wires/create.ts";
import {
  type FakeModelServer,
  httpError,
  reply,
  startFakeModelServer,
} from "../../tests/fakes/model_server.ts";
import { defaultWireOptions, fakeEndpoint } from "../../tests/fakes/model_server_wiring.ts";
import { workspaceTools } from "../tools/registry.ts";
import { testSandbox } from "../../tests/fakes/test_workspace.ts";
import type { Message, Part } from "../wires/types.ts";

const WORKSPACE_TOOLS = workspaceTools(testSandbox("/nonexistent-workdir"));

type Provider = "chat_completions" | "messages";
type ToolResultPart = Extract<Part, { type: "tool_result" }>;

async function workspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loop-wire-" }));
  for (const [name, body] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, body);
  }
  return dir;
}

function config(
  fake: FakeModelServer,
  provider: Provider,
  workdir: string,
  extra: Partial<LoopConfig> = {},
): LoopConfig {
  return {
    wire: createWire(fakeEndpoint(fake, provider), defaultWireOptions(), undefined, {
      retry: { maxRetries: 0 },
    }),
    model: "default",
    system: "You are a test agent.",
    tools: WORKSPACE_TOOLS,
    mode: "auto",
    workdir,
    context_window: 32_768,
    ...extra,
  };
}

const task = (t: string): Message[] => [{ role: "user", parts: [{ type: "text", text: t }] }];

function results(messages: readonly Message[]): ToolResultPart[] {
  return messages.flatMap((m) =>
    m.parts.filter((p): p is ToolResultPart => p.type === "tool_result")
  );
}

async function withFake(
  opts: Parameters<typeof startFakeModelServer>[0],
  fn: (fake: FakeModelServer) => Promise<void>,
): Promise<void> {
  const fake = await startFakeModelServer(opts);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

for (const provider of ["chat_completions", "messages"] as const) {
  Deno.test(`loop (${provider}): a tool call cut off by max_tokens is not run; the model is told`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace({ "hello.txt": "hello\n" });
      // llama-server with --max-tokens 3: `{"path":` then finish_reason length.
      fake.enqueue(reply().toolRaw("view", '{"path":').stop("max_tokens"));
      fake.enqueue(reply().tool("view", { path: "hello.txt" }));
      fake.enqueue(reply().text("It says hello."));
      const events: LoopEvent[] = [];
      const result = await runLoop(
        task("read hello.txt"),
        config(fake, provider, dir, { onEvent: (e) => events.push(e) }),
      );
      assert.equal(result.done_reason, "stop");
      const [cut, real] = results(result.messages);
      assert.equal(cut?.is_error, true);
      assert.match(
        cut!.content,
        /^Not run: the arguments of this view call were cut off by max_tokens/,
      );
      assert.ok(cut!.content.includes('8 bytes: "{\\"path\\":"'), cut!.content);
      assert.ok(!cut!.content.includes("non-empty string"), "the tool itself never ran");
      assert.match(real!.content, /hello/);
      // The cut call's history keeps the evidence; the next request carries the explanation.
      const call = result.messages[1]!.parts.find((p) => p.type === "tool_call");
      assert.equal(call?.type === "tool_call" ? call.raw_arguments : undefined, '{"path":');
      assert.ok(JSON.stringify(fake.requests[1]?.body).includes("cut off by max_tokens"));
      assert.ok(events.some((e) => e.type === "tool_end" && e.is_error));
      fake.assertNoViolations();
    });
  });

  Deno.test(`loop (${provider}): arguments that are not JSON are not run; a max_tokens reply runs nothing`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace({ "a.txt": "a\n" });
      fake.enqueue(reply().toolRaw("view", '{"path": a.txt}'));
      // A reply cut off after a complete first call: that call is not run either.
      fake.enqueue(
        reply().tool("create", { path: "b.txt", file_text: "b" }).toolRaw("view", '{"pa')
          .stop("max_tokens"),
      );
      fake.enqueue(reply().text("Gave up."));
      const result = await runLoop(task("read a.txt"), config(fake, provider, dir));
      assert.equal(result.done_reason, "stop");
      const [bad, whole, cut] = results(result.messages);
      assert.match(
        bad!.content,
        /are not valid JSON .*received 15 bytes: "\{\\"path\\": a\.txt\}"/,
      );
      assert.match(whole!.content, /^Not run: the reply was cut off by max_tokens/);
      assert.match(cut!.content, /cut off by max_tokens .* 4 bytes/);
      await assert.rejects(Deno.stat(`${dir}/b.txt`), Deno.errors.NotFound);
    });
  });

  Deno.test(`loop (${provider}): a text answer cut off by max_tokens ends truncated, not ok`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace();
      fake.enqueue(reply().text("Hello from a").stop("max_tokens"));
      const result = await runLoop(
        task("say hello"),
        config(fake, provider, dir, { max_tokens: 3 }),
      );
      assert.equal(result.done_reason, "truncated");
      assert.equal(result.stop_reason, "max_tokens");
      assert.equal(result.final_text, "Hello from a");
      assert.match(
        result.error ?? "",
        /cut off by max_tokens \(3 tokens\); raise AGENT_MAX_TOKENS/,
      );
    });
  });

  Deno.test(`loop (${provider}): a reasoning model cut off mid-thought is told to raise AGENT_MAX_TOKENS`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace();
      fake.enqueue(reply().reasoning("The user wants a greeting. First I").stop("max_tokens"));
      const result = await runLoop(task("say hello"), config(fake, provider, dir));
      assert.equal(result.done_reason, "error");
      assert.match(result.error ?? "", /still reasoning; raise AGENT_MAX_TOKENS/);
    });
  });

  Deno.test(`loop (${provider}): an empty turn is an error, not success`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace();
      fake.enqueue(reply().usage(0, 0));
      const result = await runLoop(task("say hello"), config(fake, provider, dir));
      assert.equal(result.done_reason, "error");
      assert.match(result.error ?? "", /without an answer \(no text, no tool call, no usage/);
    });
  });

  Deno.test(`loop (${provider}): an empty turn after earlier text is an error, not that text`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace({ "a.txt": "a\n" });
      fake.enqueue(
        reply().text("Looking.").tool("view", { path: "a.txt" }),
        reply().usage(0, 0),
      );
      const result = await runLoop(task("read a"), config(fake, provider, dir));
      assert.equal(result.done_reason, "error");
      assert.match(result.error ?? "", /without an answer \(no text, no tool call, no usage/);
      assert.equal(result.final_text, "", "the pre-tool text is not the answer");
      assert.equal(fake.requests.length, 2);
    });
  });

  Deno.test(`loop (${provider}): an empty turn with usage after earlier text is an error too`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace({ "a.txt": "a\n" });
      fake.enqueue(
        reply().text("Looking.").tool("view", { path: "a.txt" }),
        reply().usage(40, 1),
      );
      const result = await runLoop(task("read a"), config(fake, provider, dir));
      assert.equal(result.done_reason, "error");
      assert.equal(
        result.error,
        "the model ended its turn without an answer (no text, no tool call)",
      );
      assert.equal(result.final_text, "");
    });
  });

  Deno.test(`loop (${provider}): a context-overflow 400 compacts and retries the turn once`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
      fake.enqueue(
        reply().tool("view", { path: "a.txt" }),
        reply().tool("view", { path: "b.txt" }),
        reply().tool("view", { path: "c.txt" }),
        // llama-server's answer when the prompt exceeds -c.
        httpError(400, {
          error: {
            code: 400,
            message: "the request exceeds the available context size, try increasing it",
            type: "exceed_context_size_error",
            n_prompt_tokens: 13000,
            n_ctx: 12288,
          },
        }),
        reply().text("Summary: a, b and c were read."),
        reply().text("All three read."),
      );
      const events: LoopEvent[] = [];
      const result = await runLoop(
        task("read a, b and c"),
        config(fake, provider, dir, { onEvent: (e) => events.push(e) }),
      );
      assert.equal(result.done_reason, "stop", result.error);
      assert.equal(result.final_text, "All three read.");
      assert.ok(events.some((e) => e.type === "compacted"));
      assert.equal(fake.requests.length, 6);
    });
  });

  Deno.test(`loop (${provider}): a second context overflow in a row ends as an error, not a loop`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
      const overflow = () =>
        httpError(400, {
          error: {
            code: 400,
            message: "the request exceeds the available context size, try increasing it",
            type: "exceed_context_size_error",
            n_prompt_tokens: 13000,
            n_ctx: 12288,
          },
        });
      fake.enqueue(
        reply().tool("view", { path: "a.txt" }),
        reply().tool("view", { path: "b.txt" }),
        reply().tool("view", { path: "c.txt" }),
        overflow(),
        reply().text("Summary: a, b and c were read."),
        overflow(),
        // Never asked for: a third try would take it and end ok.
        reply().text("All three read."),
      );
      const events: LoopEvent[] = [];
      const result = await runLoop(
        task("read a, b and c"),
        config(fake, provider, dir, { onEvent: (e) => events.push(e) }),
      );
      assert.equal(result.done_reason, "error");
      assert.match(
        result.error ?? "",
        /^the prompt did not fit the model's context window even after compacting once \(set AGENT_CONTEXT_WINDOW .*\): 400 from POST .*exceeds the available context size/,
      );
      assert.equal(events.filter((e) => e.type === "compacted").length, 1);
      // 3 tool turns, the overflow, the summary, the second overflow: no third try.
      assert.equal(fake.requests.length, 6);
    });
  });

  Deno.test(`loop (${provider}): an overflow with nothing to compact or cut says so`, async () => {
    await withFake({}, async (fake) => {
      const dir = await workspace();
      fake.enqueue(
        httpError(400, { error: { message: "prompt is too long", type: "invalid_request_error" } }),
        reply().text("never asked for"),
      );
      const result = await runLoop(task("say hello"), config(fake, provider, dir));
      assert.equal(result.done_reason, "error");
      assert.match(
        result.error ?? "",
        /^the prompt did not fit the model's context window and there was nothing to compact or cut \(/,
      );
      assert.equal(fake.requests.length, 1);
    });
  });

  Deno.test(`loop (${provider}): compaction looks at the tool results about to be sent`, async () => {
    await withFake({}, async (fake) => {
      const big = "x".repeat(40) + "\n";
      const dir = await workspace({ "a.txt": "a\n", "b.txt": "b\n", "big.txt": big.repeat(300) });
      fake.enqueue(
        reply().tool("view", { path: "a.txt" }).usage(100, 10),
        reply().tool("view", { path: "b.txt" }).usage(120, 10),
        reply().tool("view", { path: "big.txt" }).usage(140, 10),
        reply().text("Summary of a and b."),
        reply().text("Done."),
      );
      const events: LoopEvent[] = [];
      const result = await runLoop(
        task("read them"),
        config(fake, provider, dir, {
          context_window: 8000,
          compaction_threshold: 0.5,
          onEvent: (e) => events.push(e),
        }),
      );
      assert.equal(result.done_reason, "stop", result.error);
      // The last turn's usage (150) was far below 4000; the 12 KB result about to go was not.
      assert.ok(events.some((e) => e.type === "compacted"), "compacted before sending");
    });
  });

  Deno.test(`loop (${provider}): a refused "default" model names the served models`, async () => {
    await withFake({ models: [{ id: "mock-text" }, { id: "mock-tool" }] }, async (fake) => {
      const dir = await workspace();
      // LiteLLM's answer to a model name it has no deployment for.
      fake.enqueue(httpError(400, {
        error: {
          message: "/chat/completions: Invalid model name passed in model=default. Call " +
            "`/v1/models` to view available models for your key.",
          type: "None",
          param: "None",
          code: "400",
        },
      }));
      const result = await runLoop(task("hi"), config(fake, provider, dir));
      assert.equal(result.done_reason, "error");
      assert.equal(
        result.error,
        'the server does not accept the model "default"; set AGENT_MODEL to one of: ' +
          "mock-text, mock-tool",
      );
      assert.equal(result.model, undefined, "no model answered");
      assert.equal(result.stop_reason, undefined);
    });
  });
}

Deno.test("loop: a tool result too big for the window on its own is cut with a note", async () => {
  const { capToolResults } = await import("./context_fit.ts");
  const message: Message = {
    role: "user",
    parts: [{ type: "tool_result", call_id: "c1", content: "y".repeat(50_000) }],
  };
  assert.equal(capToolResults([message], 4096), true);
  const part = message.parts[0] as ToolResultPart;
  assert.ok(part.content.length < 7000);
  assert.match(
    part.content,
    /\[cut: this tool result was 50000 characters, too long for the model's context window of 4096 tokens/,
  );
  assert.equal(capToolResults([message], 4096), false, "a cut result is not cut again");
});
