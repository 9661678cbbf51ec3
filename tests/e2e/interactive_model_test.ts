// /model and /providers in a real pseudo-terminal: the picker (favorites first, arrows,
// f persisted, esc), an unkeyed pick handing off to masked key entry, refusals without a
// key, and a cross-wire swap that carries the conversation over.

import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { peerTest, probes } from "../peers.ts";
import { type FakeModelServer, reply, startFakeModelServer } from "../fakes/model_server.ts";
import { lastUserText, TmuxAgent, toolResults, userTexts } from "./interactive_tmux.ts";

function settingsFor(fake: FakeModelServer, opts: { msgsKey?: string } = {}): string {
  return [
    `model_favorites = ["fake-msgs"]`,
    `temperature = 0.5`,
    `[provider_keys]`,
    `fake-chat = "sk-chat-0001"`,
    `other = "keep-me"`,
    ...(opts.msgsKey ? [`fake-msgs = "${opts.msgsKey}"`] : []),
    `[[providers]]`,
    `id = "fake-chat"`,
    `label = "Fake chat endpoint"`,
    `provider = "chat_completions"`,
    `base_url = "${fake.url}"`,
    `model = "chat-model"`,
    `[[providers]]`,
    `id = "fake-msgs"`,
    `provider = "messages"`,
    `base_url = "${fake.url}"`,
    `model = "msg-model"`,
    "",
  ].join("\n");
}

const ENV = { AGENT_MEMORY_REFLECT: "0", AGENT_PRESET: "fake-chat" };
/** The masked key prompt while it is open (answered prompts turn their "?" into "✔"). */
const KEY_PROMPT = /^\? API key for fake-msgs/m;
const MODELS = [{ id: "chat-model", max_model_len: 65536 }, { id: "chat-model-large" }];

async function readSettings(agent: TmuxAgent): Promise<Record<string, unknown>> {
  return parse(await Deno.readTextFile(agent.settingsPath)) as Record<string, unknown>;
}

/** The screen from the last "Switch model" header down (the open picker). */
function picker(screen: string): string {
  return screen.slice(screen.lastIndexOf("Switch model"));
}

peerTest(
  "/model picker: favorites first, arrows move, f persists, esc cancels",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer({ models: MODELS });
    const agent = await TmuxAgent.start({ env: ENV, settings: settingsFor(fake) });
    try {
      await agent.idle();
      await agent.submit("/model");
      let screen = picker(await agent.waitFor("Switch model"));
      const order = [
        "★ Favorites",
        "fake-msgs · msg-model",
        "Presets",
        "hosted-messages",
        "Custom endpoints",
        "Served by the active endpoint",
      ]
        .map((t) => screen.indexOf(t));
      assert.deepEqual([...order].sort((a, b) => a - b), order, `groups out of order:\n${screen}`);
      assert.ok(order.every((i) => i >= 0), screen);
      // Key badges and needs-key hints; the cursor starts on the active row.
      assert.match(screen, /❯ fake-chat · chat-model\s+current · key ✓/);
      assert.match(
        screen,
        /hosted-messages · claude-sonnet-4-5\s+needs key · \/providers hosted-messages/,
      );
      assert.match(screen, /chat-model-large\s+key ✓/);

      // Down to fake-msgs (a favorite): f removes it, and the favorites group goes away.
      await agent.keys("Down");
      await agent.waitFor(/❯ fake-msgs · msg-model ★/);
      await agent.keys("f");
      screen = picker(await agent.waitFor(/Switch model[\s\S]*❯ fake-msgs · msg-model(?! ★)\s/));
      assert.doesNotMatch(screen, /★ Favorites/);
      assert.deepEqual((await readSettings(agent)).model_favorites, []);

      // Down twice to the live chat-model-large row: f adds it.
      await agent.keys("Down", "Down");
      await agent.waitFor(/❯ chat-model-large/);
      await agent.keys("f");
      screen = picker(await agent.waitFor(/★ Favorites\s+chat-model-large/));
      assert.deepEqual((await readSettings(agent)).model_favorites, ["chat-model-large"]);

      await agent.keys("Escape");
      await agent.waitFor("model unchanged");
      screen = await agent.idle();
      assert.match(screen, /─ chat-model · fake-chat ·/);
      // Nothing else in the settings file was lost.
      const saved = await readSettings(agent);
      assert.equal(saved.temperature, 0.5);
      assert.deepEqual({ ...(saved.provider_keys as object) }, {
        "fake-chat": "sk-chat-0001",
        other: "keep-me",
      });
      assert.equal((saved.providers as unknown[]).length, 2);
      // The next picker shows the new favorite first.
      await agent.submit("/model");
      screen = picker(await agent.waitFor(/Switch model[\s\S]*★ Favorites\s+chat-model-large/));
      await agent.keys("Escape");
      await agent.idle();
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

peerTest(
  "an unkeyed pick hands off to /providers: masked key, saved, session swaps live",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer({ models: MODELS });
    const agent = await TmuxAgent.start({ env: ENV, settings: settingsFor(fake) });
    const key = "sk-msgs-secret-9876";
    try {
      await agent.idle();
      fake.enqueue(reply().reasoning("warming up").text("Hi on the chat wire."));
      await agent.submit("hello there");
      await agent.waitFor("Hi on the chat wire.");
      await agent.idle();

      await agent.submit("/model");
      await agent.waitFor(/❯ fake-chat · chat-model/);
      await agent.keys("Down");
      await agent.waitFor(/❯ fake-msgs · msg-model ★/);
      await agent.keys("Enter");
      await agent.waitFor("fake-msgs has no API key yet: /providers fake-msgs");
      await agent.waitFor(KEY_PROMPT);
      await agent.type(key);
      let screen = await agent.waitFor("*".repeat(key.length));
      assert.doesNotMatch(screen, /secret-9876/);
      await agent.keys("Enter");
      screen = await agent.waitFor(/model: msg-model · messages · fake-msgs/);
      assert.match(screen, /key for fake-msgs stored \(sk-…9876\)/);
      assert.doesNotMatch(screen, /secret-9876/);
      await agent.idle();

      // Stored with the read-merge write: the other keys and settings are still there.
      const saved = await readSettings(agent);
      assert.deepEqual({ ...(saved.provider_keys as object) }, {
        "fake-chat": "sk-chat-0001",
        other: "keep-me",
        "fake-msgs": key,
      });
      assert.equal(saved.temperature, 0.5);
      assert.deepEqual(saved.model_favorites, ["fake-msgs"]);
      assert.equal((await Deno.stat(agent.settingsPath)).mode! & 0o777, 0o600);

      // The conversation continues on the Messages wire with the new key.
      fake.enqueue(reply().text("Hi on the messages wire."));
      await agent.submit("still there?");
      await agent.waitFor("Hi on the messages wire.");
      const req = fake.requests.at(-1)!;
      assert.equal(req.wire, "messages");
      assert.equal(req.headers["x-api-key"], key);
      assert.equal(req.body!.model, "msg-model");
      assert.deepEqual(userTexts(req.body), ["hello there", "still there?"]);
      fake.assertNoViolations();
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

peerTest(
  "/model <id> with no key refuses with a /providers hint; [1m] is stripped first",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer({ models: MODELS });
    const agent = await TmuxAgent.start({ env: ENV, settings: settingsFor(fake) });
    try {
      await agent.idle();
      await agent.submit("/model hosted-messages");
      await agent.waitFor(
        "No API key for hosted-messages: run /providers hosted-messages to enter one",
      );
      await agent.submit("/model claude-sonnet-4-5[1m]");
      await agent.waitFor(/No API key for hosted-messages: run \/providers hosted-messages/, {
        count: 2,
      });
      await agent.submit("/providers nope");
      await agent.waitFor(
        /Unknown provider "nope"\. Known: hosted-messages, messages-gateway, fake-chat, fake-msgs/,
      );
      const screen = await agent.idle();
      assert.match(screen, /─ chat-model · fake-chat ·/);
      assert.equal(fake.requests.length, 0);
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

peerTest("a cross-wire swap carries the conversation over, both ways", probes.tmux, async () => {
  const fake = await startFakeModelServer({ models: MODELS });
  const agent = await TmuxAgent.start({
    env: ENV,
    settings: settingsFor(fake, { msgsKey: "sk-msgs-0002" }),
  });
  try {
    await agent.idle();
    fake.enqueue(reply().reasoning("chat thoughts").text("Chat answer one."));
    await agent.submit("question one");
    await agent.waitFor("Chat answer one.");
    await agent.idle();

    // A live model on the same endpoint: model-only swap.
    await agent.submit("/model chat-model-large");
    await agent.waitFor(/model: chat-model-large · chat_completions · fake-chat/);
    await agent.submit("/model fake-msgs");
    await agent.waitFor(/model: msg-model · messages · fake-msgs/);
    await agent.waitFor("the conversation continues on the messages wire");

    fake.enqueue(
      reply().reasoning("signed thoughts").text("Let me look.").tool("view", { path: "." }),
      reply().reasoning("more signed thoughts").text("Messages answer two."),
    );
    await agent.submit("question two");
    await agent.waitFor("Messages answer two.");
    await agent.idle();
    const onMessages = fake.requests[1]!;
    assert.equal(onMessages.wire, "messages");
    assert.deepEqual(userTexts(onMessages.body), ["question one", "question two"]);
    // The chat wire's unsigned reasoning is not sent as a thinking block.
    assert.doesNotMatch(JSON.stringify(onMessages.body), /chat thoughts/);

    await agent.submit("/model fake-chat");
    await agent.waitFor(/model: chat-model · chat_completions · fake-chat/);
    fake.enqueue(reply().text("Chat answer three."));
    await agent.submit("question three");
    await agent.waitFor("Chat answer three.");
    const back = fake.requests.at(-1)!;
    assert.equal(back.wire, "chat_completions");
    assert.equal(back.body!.model, "chat-model");
    assert.equal(lastUserText(back.body), "question three");
    assert.deepEqual(userTexts(back.body).filter((t) => t !== ""), [
      "question one",
      "question two",
      "question three",
    ]);
    assert.equal(toolResults(back.body).length, 1);
    assert.doesNotMatch(JSON.stringify(back.body), /signed thoughts/);
    fake.assertNoViolations();
  } finally {
    await agent.close();
    await fake.close();
  }
});

peerTest(
  "a session opens without a key; /providers <id> stores one and the session uses it live",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer({ models: MODELS });
    const agent = await TmuxAgent.start({
      env: { ...ENV, AGENT_PRESET: "fake-msgs" },
      settings: settingsFor(fake),
    });
    try {
      let screen = await agent.idle();
      assert.match(screen, /No API key for fake-msgs: run \/providers fake-msgs to enter one/);
      await agent.submit("are you there?");
      await agent.waitFor(/No API key for fake-msgs: run \/providers fake-msgs/, { count: 2 });
      assert.equal(fake.requests.length, 0);

      // A bad entry (whitespace inside) is refused and nothing is written.
      await agent.submit("/providers fake-msgs");
      await agent.waitFor(KEY_PROMPT);
      await agent.type("two words");
      await agent.keys("Enter");
      await agent.waitFor(
        "The API key for fake-msgs is empty or contains whitespace; paste the key alone.",
      );
      const keys = { ...(await readSettings(agent)).provider_keys as Record<string, string> };
      assert.deepEqual(keys, { "fake-chat": "sk-chat-0001", other: "keep-me" });

      await agent.submit("/providers");
      screen = await agent.waitFor(/Enter an API key for/);
      assert.match(screen, /fake-chat · Fake chat endpoint\s+key stored/);
      assert.match(screen, /fake-msgs · fake-msgs\s+needs key/);
      await agent.keys("Down", "Down", "Down");
      await agent.waitFor(/❯ fake-msgs/);
      await agent.keys("Enter");
      await agent.waitFor(KEY_PROMPT);
      await agent.type("sk-live-swap-5555");
      await agent.keys("Enter");
      await agent.waitFor("the session now uses the new key for fake-msgs");
      fake.enqueue(reply().text("Yes, here."));
      await agent.submit("are you there now?");
      await agent.waitFor("Yes, here.");
      assert.equal(fake.requests[0]!.headers["x-api-key"], "sk-live-swap-5555");
      fake.assertNoViolations();
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);
