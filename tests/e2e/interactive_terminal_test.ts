// The terminal while the model works, in a real pseudo-terminal: the activity line before the
// first token and while a tool runs, markdown rendered (plain under NO_COLOR), text typed
// during a reply (or before the prompt is up) sent after it, tool output collapsed and expanded, and one model name
// everywhere (banner, status line, /model picker).

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { fakeModelSession, lastUserText, TmuxAgent } from "./interactive_tmux.ts";

const QUIET = { AGENT_MEMORY_REFLECT: "0" };

function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

peerTest(
  "an activity line runs from the request to the first token and while a tool runs",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession();
    const { fake, agent } = s;
    await agent.idle();
    const first = gate();
    fake.enqueue(reply().gate(first.opened).text("Here you go."));
    await agent.submit("hello");
    // Nothing has streamed yet: the line says so, with the elapsed time and the way out.
    await agent.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the model · \d+(\.\d)?s · esc to interrupt/);
    // It keeps moving: the elapsed time changes while the model is silent.
    const before = /waiting for the model · ([\d.]+)s/.exec(await agent.screen())![1];
    await agent.waitFor(new RegExp(`waiting for the model · (?!${before}s)[\\d.]+s`));
    first.open();
    let screen = await agent.waitFor("Here you go.");
    await agent.idle();
    screen = await agent.screen();
    assert.doesNotMatch(screen, /waiting for the model/, "the line is gone once text came");

    // A tool that waits for a file the test creates: the line names it while it runs.
    fake.enqueue(
      reply().tool("shell", {
        command: "while [ ! -e go ]; do sleep 0.05; done; echo finished",
      }).usage(100, 42),
      reply().text("The command finished."),
    );
    await agent.submit("run it");
    screen = await agent.waitFor(/running shell · \d+(\.\d)?s · 42 tokens · esc to interrupt/);
    await Deno.writeTextFile(`${agent.workdir}/go`, "");
    await agent.waitFor("The command finished.");
    screen = await agent.idle();
    // A shell call that went well is summed up by its first output line.
    assert.match(screen, /⎿ finished$/m);
    assert.doesNotMatch(screen, /running shell ·/);
    fake.assertNoViolations();
  },
);

const MARKDOWN = [
  "# Release notes",
  "",
  "This is **important** and *subtle*.",
  "",
  "- first item",
  "- second item",
  "",
  "| name | size |",
  "| ---- | ---- |",
  "| alpha | 12 |",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
  "",
  "That is all.",
].join("\n");

peerTest(
  "replies are rendered as markdown; under NO_COLOR they stay plain text",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    try {
      // The e2e kit turns colors off unless asked (NO_COLOR=1); an empty NO_COLOR turns them on.
      const agent = await TmuxAgent.start({
        env: { ...QUIET, AGENT_BASE_URL: fake.url, NO_COLOR: "" },
      });
      try {
        await agent.idle();
        fake.enqueue(reply().text(MARKDOWN));
        await agent.submit("notes please");
        await agent.waitFor("That is all.");
        await agent.idle();
        const plain = await agent.screen();
        // The markup is gone: no heading hashes, emphasis stars, table rules or fences.
        assert.match(plain, /^Release notes$/m);
        assert.doesNotMatch(plain, /# Release notes|\*\*important\*\*|```|\| ---- \|/);
        assert.match(plain, /This is important and subtle\./);
        assert.match(plain, /^• first item$/m);
        assert.match(plain, /│ alpha │ 12\s+│/);
        assert.match(plain, /^\s*const answer: number = 42;$/m);
        // And styled: a bold heading, bold emphasis, a highlighted keyword.
        const styled = await agent.screen({ escapes: true });
        const sgr = String.raw`\x1b\[[\d;]*m`;
        const bold = String.raw`\x1b\[[\d;]*1[;m]`;
        assert.match(styled, new RegExp(`${bold}[^\\n]*Release notes`));
        assert.match(styled, new RegExp(`${bold}important`));
        assert.match(styled, new RegExp(`${sgr}\\s*const${sgr} answer`));
      } finally {
        await agent.close();
      }

      const noColor = await TmuxAgent.start({
        env: { ...QUIET, AGENT_BASE_URL: fake.url, NO_COLOR: "1" },
      });
      try {
        await noColor.idle();
        fake.enqueue(reply().text(MARKDOWN));
        await noColor.submit("notes please");
        await noColor.waitFor("That is all.");
        await noColor.idle();
        const screen = await noColor.screen({ escapes: true });
        assert.ok(!screen.includes("\x1b["), JSON.stringify(screen));
        assert.ok(screen.includes(MARKDOWN), screen);
      } finally {
        await noColor.close();
      }
      fake.assertNoViolations();
    } finally {
      await fake.close();
    }
  },
);

peerTest(
  "text typed while a reply streams is sent as the next message; a draft waits at the prompt",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession();
    const { fake, agent } = s;
    await agent.idle();
    const held = gate();
    fake.enqueue(
      reply().text("Working on it").gate(held.opened).text(", done."),
      reply().text("Second answer."),
    );
    await agent.submit("first question");
    await agent.waitFor("Working on it");
    await agent.submit("and a follow-up");
    await agent.type("half a thoughtxx");
    await agent.keys("BSpace", "BSpace");
    held.open();
    await agent.waitFor("Second answer.");
    assert.equal(lastUserText(fake.requests[1]!.body), "and a follow-up");
    // The queued message is shown as if typed at the prompt; the unfinished line waits there.
    const screen = await agent.waitFor(/› half a thought$/);
    assert.match(screen, /Working on it, done\.[\s\S]*› and a follow-up\s+Second answer\./);
    assert.equal(fake.requests.length, 2);
    fake.enqueue(reply().text("Third."));
    await agent.keys("Enter");
    await agent.waitFor("Third.");
    assert.equal(lastUserText(fake.requests[2]!.body), "half a thought");
    fake.assertNoViolations();
  },
);

peerTest(
  "a message typed before the prompt is up is sent once it is, with colors and markdown on",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    fake.enqueue(reply().text("pong and the rest of a short reply."));
    // NO_COLOR empty: colors on, so the markdown renderer loads on the first text, as it does
    // for a user (the start-up bench's first-token run types the same way, at the prompt).
    const agent = await TmuxAgent.start({
      env: { ...QUIET, AGENT_BASE_URL: fake.url, NO_COLOR: "" },
    });
    try {
      // Typed at once: the agent is still starting, the terminal not yet in raw mode.
      await agent.submit("ping");
      await agent.waitFor("pong and the rest of a short reply.");
      await agent.idle();
      assert.equal(fake.requests.length, 1);
      assert.equal(lastUserText(fake.requests[0]!.body), "ping");
      fake.assertNoViolations();
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

peerTest(
  "tool output is collapsed to one line; ctrl+o and /expand show it whole",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession();
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(
      reply().tool("shell", { command: "seq 101 104" }),
      reply().text("Listed."),
    );
    await agent.submit("list rows");
    await agent.waitFor("Listed.");
    let screen = await agent.idle();
    assert.match(screen, /⎿ 101 \(\+3 lines · ctrl\+o expands\)/);
    assert.doesNotMatch(screen, /^\s*103$/m);

    await agent.keys("C-o");
    screen = await agent.waitFor(/^ {2}103$/m);
    assert.match(
      screen,
      /\n⏺ shell: seq 101 104\n {2}exit code 0\n {2}101\n {2}102\n {2}103\n {2}104/,
    );
    await agent.idle();
    await agent.submit("/expand");
    await agent.waitFor(/^ {2}104$/m, { count: 2 });
    fake.assertNoViolations();
  },
);

peerTest(
  "one model name: banner, status line and /model picker show the served name, never `default` beside it",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({
      server: {
        models: [{ id: "served-7b", max_model_len: 65536 }, { id: "other-3b" }],
      },
      env: { AGENT_PROVIDER: "chat_completions" },
    });
    const { fake, agent } = s;
    let screen = await agent.idle();
    assert.match(screen, /model served-7b/);
    assert.match(screen, /─ served-7b · /);
    await agent.submit("/model");
    screen = await agent.waitFor(/Served by the active endpoint[\s\S]*other-3b/);
    const picker = screen.slice(screen.lastIndexOf("Switch model"));
    assert.match(picker, /served-7b\s+current/);
    assert.doesNotMatch(picker, /^\W*default\b/m);
    await agent.keys("Escape");
    await agent.waitFor("model unchanged");
    fake.assertNoViolations();
  },
);
