// Prompt-cache accounting of `agent -p`, as a real child process against the fake model
// server: the cache counts each wire reports reach the JSON object (usage.cache_read_tokens,
// usage.cache_write_tokens) and the report, priced at the table's cache rates, with the
// saving beside the cost; the Messages requests carry the rolling breakpoints.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { cacheSavingOf, costOf, roundUsd } from "../../core/pricing/pricing.ts";

Deno.test("Messages: cache reads and writes are counted, priced at the cache rates, and the saving shown", async () => {
  await using t = await headlessSetup({
    provider: "messages",
    server: { models: [{ id: "claude-sonnet-4-5", max_model_len: 200_000 }] },
  });
  await Deno.writeTextFile(`${t.work}/a.txt`, "alpha\n");
  t.fake.enqueue(reply().tool("view", { path: "a.txt" }).usage(100, 10, { creation: 2000 }));
  t.fake.enqueue(reply().text("done").usage(40, 5, { read: 2000, creation: 160 }));
  const report = `${t.home}/r.md`;
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--output", report, "--", "look"],
    { ...t.env, AGENT_PRICING: "1" },
  );
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.deepEqual(result.usage, {
    input_tokens: 140,
    output_tokens: 15,
    cache_read_tokens: 2000,
    cache_write_tokens: 2160,
  });
  const usage = result.usage;
  assert.equal(result.model, "claude-sonnet-4-5");
  // $3 in, $15 out, $0.30 read, $3.75 write per million tokens.
  assert.equal(result.cost_usd, roundUsd(costOf("messages", "claude-sonnet-4-5", usage)));
  assert.equal(result.cost_usd, 0.009345);
  assert.equal(
    result.cache_saving_usd,
    roundUsd(cacheSavingOf("messages", "claude-sonnet-4-5", usage)),
  );
  assert.equal(result.cache_saving_usd, 0.00378);
  const text = await Deno.readTextFile(report);
  assert.match(
    text,
    /- \*\*Prompt cache:\*\* 2000 read \/ 2160 written \(47% of 4300 prompt tokens/,
  );
  assert.match(text, /- \*\*Saved by the prompt cache:\*\* \$0\.003780\n/);

  // The second request reads the first one's prefix: tool, system, the call and its result.
  const second = t.fake.requests[1]!.body!;
  const marked = (list: unknown) =>
    (list as Record<string, unknown>[]).filter((b) => "cache_control" in b).length;
  const messages = second.messages as { content: unknown }[];
  const count = marked(second.tools) + marked(second.system) +
    messages.reduce((n, m) => n + marked(m.content), 0);
  assert.equal(count, 4);
  assert.equal(marked(messages.at(-1)!.content), 1);
  assert.equal(marked(messages.at(-2)!.content), 1);
});

Deno.test("Chat Completions: cached_tokens become cache_read_tokens; nothing is written", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("hi").usage(24, 3, { read: 1024 }));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--", "q"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.deepEqual(result.usage, {
    input_tokens: 24,
    output_tokens: 3,
    cache_read_tokens: 1024,
    cache_write_tokens: 0,
  });
  // Pricing is off: neither a cost nor a saving.
  assert.equal(result.cost_usd, null);
  assert.ok(!("cache_saving_usd" in result));
  // Not hosted OpenAI: no prompt_cache_key.
  assert.ok(!("prompt_cache_key" in t.fake.requests[0]!.body!));
});
