// What the screen shows around a reply, in a real pseudo-terminal (tmux, NO_COLOR=1, widths
// 60 and 140): an interrupted reply kept with its partial text, the status line shortened by
// priority and showing the permission mode, /help's one column, and the saved session naming
// the served model.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply } from "../fakes/model_server.ts";
import { fakeModelSession, lastUserText, type TmuxAgent } from "./interactive_tmux.ts";
import { tempHome } from "./agent_process.ts";

const PLAIN = { NO_COLOR: "1" };

/** The session journal's entries (one session in the home). */
function journalEntries(agent: TmuxAgent): Record<string, unknown>[] {
  const dir = `${agent.agentHome}/sessions`;
  const files = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".jsonl"));
  assert.equal(files.length, 1);
  return Deno.readTextFileSync(`${dir}/${files[0]!.name}`).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
}

type WireMessage = { role: string; content: unknown };

peerTest(
  "an interrupted reply keeps its partial text: on screen, in the journal as 'interrupted', in the next request",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    const never = new Promise<void>(() => {});
    fake.enqueue(reply().text("The first half of the answer").gate(never), reply().text("Fine."));
    await agent.submit("explain");
    await agent.waitFor("The first half of the answer");
    await agent.keys("Escape");
    await agent.waitFor("⏹ interrupted");
    await agent.idle();
    await agent.submit("go on");
    await agent.waitFor("Fine.");
    const messages = (fake.requests[1]!.body?.messages ?? []) as WireMessage[];
    const said = messages.filter((m) => m.role === "assistant").map((m) => JSON.stringify(m));
    assert.ok(
      said.some((m) => m.includes("The first half of the answer")),
      "the partial reply is context for the next one",
    );
    const outcomes = journalEntries(agent).filter((e) => e.type === "outcome");
    assert.equal(outcomes[0]!.done_reason, "interrupted");
    assert.equal(outcomes[0]!.final_text, "The first half of the answer");
  },
);

peerTest(
  "the status line keeps context use at 60 columns and shows the mode after /mode",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { agent } = s;
    let screen = await agent.idle();
    const status = () => screen.split("\n").findLast((l) => l.startsWith("─ "))!;
    assert.match(status(), /ctx 0\/33k/);
    assert.match(status(), /mode auto/);
    assert.ok([...status()].length <= 58, status());
    await agent.submit("/mode strict");
    screen = await agent.waitFor(/─ .*mode strict.* ─/);
    assert.match(status(), /mode strict · .*ctx 0\/33k/);
  },
);

peerTest(
  "/help keeps its help texts in one column, the /mcp row too",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 140 });
    const { agent } = s;
    await agent.idle();
    await agent.submit("/help");
    const screen = await agent.waitFor("this list");
    const rows = screen.split("\n").filter((l) => /^ {2}\/\w/.test(l));
    assert.ok(rows.length > 10);
    const column = (row: string) => /^ {2}\S.*?\S {2,}(?=\S)/.exec(row)![0].length;
    const mcp = rows.find((r) => r.startsWith("  /mcp"))!;
    assert.match(mcp, /^ {2}\/mcp \[reconnect\|approve NAME\] {2,}MCP servers/);
    for (const row of rows) assert.equal(column(row), column(mcp), row);
  },
);

peerTest(
  "a saved session records the served model, not the 'default' placeholder",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 140 });
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Hi."));
    await agent.submit("hello");
    await agent.waitFor("Hi.");
    const meta = journalEntries(agent).find((e) => e.type === "meta") ?? journalEntries(agent)[0]!;
    assert.equal(JSON.stringify(meta).includes('"model":"fake-model"'), true, JSON.stringify(meta));
  },
);

peerTest(
  "streamed text wraps at word boundaries at 60 columns, words split across deltas included",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    const sentence = "Here is what I found after reading every file in the folder: " +
      "the configuration loader ignores unknown keys, the cache is never invalidated, " +
      "and the retry loop sleeps for a fixed interval regardless of the error it saw.";
    fake.enqueue(reply().text(sentence).pieces(3));
    await agent.submit("report");
    await agent.waitFor("regardless of the error it saw.");
    const screen = await agent.idle();
    const rows = screen.split("\n");
    const first = rows.findIndex((r) => r.startsWith("Here is what"));
    const last = rows.findIndex((r) => r.endsWith("it saw."));
    const shown = rows.slice(first, last + 1);
    assert.ok(shown.length >= 3, screen);
    for (const row of shown) assert.ok([...row].length <= 60, row);
    // Every row holds whole words: joined back with spaces they are the sentence again.
    assert.equal(shown.map((r) => r.trim()).join(" "), sentence);
  },
);

peerTest(
  "agent --resume shows the conversation's last turns and its context use, not a fresh start",
  probes.tmux,
  async () => {
    const home = await tempHome();
    try {
      let id: string;
      {
        await using s = await fakeModelSession({ env: PLAIN, width: 60, home });
        const { fake, agent } = s;
        await agent.idle();
        fake.enqueue(
          reply().text("First answer."),
          reply().text("Second answer, at length.").usage(1234, 56),
        );
        await agent.submit("first question");
        await agent.waitFor("First answer.");
        await agent.idle();
        await agent.submit("second question");
        await agent.waitFor("Second answer, at length.");
        await agent.idle();
        await agent.keys("C-d");
        const screen = await agent.waitFor(/agent --resume (\S+)/);
        id = /agent --resume (\S+)/.exec(screen)![1]!;
      }
      await using s = await fakeModelSession({
        env: PLAIN,
        width: 140,
        home,
        args: ["--resume", id],
      });
      const screen = await s.agent.idle();
      assert.match(
        screen,
        /› first question\nFirst answer\.\n› second question\nSecond answer, at length\./,
      );
      // The server's count of the last turn (1234 + 56), kept in the journal.
      const status = screen.split("\n").findLast((l) => l.startsWith("─ "))!;
      assert.match(status, /ctx 1\.3k\/33k/);
      // /resume names the current conversation instead of saying there is none.
      await s.agent.submit("/resume");
      await s.agent.waitFor(
        `no other saved conversations in ${home}/.agent/sessions (the current one is ${id})`,
      );
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

peerTest(
  "while text streams the activity line stays, showing what is typed ahead and how many are queued",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 140 });
    const { fake, agent } = s;
    await agent.idle();
    let open = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    fake.enqueue(
      reply().text("The first part of the reply").gate(opened).text(" and the end."),
      reply().text("Answered the queued one."),
    );
    await agent.submit("tell me");
    await agent.waitFor("The first part of the reply");
    // Text has come, and the line is still there under it.
    await agent.waitFor(/The first part of the reply\n[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] responding · [\d.]+s · /);
    await agent.type("what next");
    await agent.waitFor(/responding · .*esc to interrupt · › what next/);
    await agent.keys("Enter");
    await agent.waitFor(/responding · .*1 queued · esc to interrupt/);
    open();
    await agent.waitFor("Answered the queued one.");
    assert.equal(fake.requests.length, 2);
  },
);

peerTest(
  "a resize while a picker is open redraws it cleanly: no duplicated or stale rows",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 140 });
    const { fake, agent } = s;
    await agent.idle();
    const long = (word: string) => `${word} ${"and a long description of it ".repeat(3)}`.trim();
    fake.enqueue(
      reply().tool("ask", {
        questions: [{
          kind: "question",
          text: "Which color?",
          options: [long("red"), long("blue"), long("green")],
        }],
      }),
      reply().text("Green it is."),
    );
    await agent.submit("paint it");
    await agent.waitFor(/Which color\?[\s\S]*❯ red and a long/);
    await agent.resize(60);
    await agent.keys("Down");
    const screen = await agent.waitFor(/❯ blue/);
    const visible = await agent.screen({ visibleOnly: true });
    assert.equal(visible.match(/Which color\?/g)?.length, 1, visible);
    for (const word of ["red", "blue", "green"]) {
      assert.equal(visible.match(new RegExp(`^ . ${word} and`, "gm"))?.length, 1, visible);
    }
    assert.doesNotMatch(visible, /^(and a long|description|of it)/m, "no reflowed fragments");
    for (const line of visible.split("\n")) assert.ok([...line].length <= 60, line);
    assert.ok(screen.length > 0);
    await agent.keys("Down", "Enter");
    await agent.waitFor("Green it is.");
  },
);

peerTest(
  "a paste typed ahead while a reply streams is one queued message, not one per line",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    let open = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    fake.enqueue(
      reply().text("Working").gate(opened).text(" done."),
      reply().text("Got the pasted lines."),
    );
    await agent.submit("start");
    await agent.waitFor("Working");
    await agent.paste("first pasted\nsecond pasted");
    await agent.keys("Enter");
    await agent.waitFor(/1 queued/);
    open();
    await agent.waitFor("Got the pasted lines.");
    await agent.idle();
    assert.equal(fake.requests.length, 2);
    assert.equal(lastUserText(fake.requests[1]!.body), "first pasted\nsecond pasted");
  },
);
