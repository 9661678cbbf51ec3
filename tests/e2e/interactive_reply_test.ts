// Interactive sessions in a real pseudo-terminal: streamed replies, reasoning collapsed and
// shown again, tool calls, strict-mode approval, ctrl+c interrupting a reply, input history
// and multi-line input.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import {
  fakeModelSession,
  lastUserText,
  TmuxAgent,
  toolResults,
  userTexts,
} from "./interactive_tmux.ts";
import { runAgent, tempHome } from "./agent_process.ts";

const QUIET = { AGENT_MEMORY_REFLECT: "0" };

peerTest(
  "a streamed reply: banner, reasoning collapsed, text, status line",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({
      server: {
        models: [{ id: "served-7b", max_model_len: 65536 }],
      },
      env: { AGENT_PROVIDER: "chat_completions" },
    });
    const { fake, agent } = s;
    // The banner shows the served model resolved from GET /v1/models, not "default".
    let screen = await agent.idle();
    assert.match(screen, /model served-7b/);
    assert.match(
      screen,
      /─ served-7b · http:\/\/127\.0\.0\.1:\d+\/v1 · mode auto · effort default · ctx 0\/66k ─/,
    );

    fake.enqueue(
      reply().reasoning("Let me think about the greeting carefully.").text("Hello from the fake!")
        .usage(1200, 30),
    );
    await agent.submit("say hello");
    screen = await agent.waitFor(/ctx 1\.2k\/66k/);
    assert.match(screen, /Hello from the fake!/);
    // Reasoning collapsed to one line; its text is gone from the screen.
    assert.match(screen, /✻ thought for 7 words \(\/reasoning shows it\)/);
    assert.doesNotMatch(screen, /greeting carefully/);
    await agent.submit("/reasoning");
    screen = await agent.waitFor("Let me think about the greeting carefully.");

    const body = fake.requests[0]!.body!;
    assert.equal(body.model, "default");
    assert.equal(lastUserText(body), "say hello");
    fake.assertNoViolations();

    await agent.submit("/exit");
    assert.equal(await agent.waitForExit(), 0);
  },
);

peerTest(
  "strict mode shows the diff or the command first; yes, yes for the session, no with a note",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    const agent = await TmuxAgent.start({
      args: ["--mode", "strict"],
      env: { ...QUIET, AGENT_BASE_URL: fake.url },
    });
    try {
      await agent.idle();
      fake.enqueue(
        reply().tool("create", { path: "notes.txt", file_text: "one\ntwo\n" }),
        reply().text("Created the file."),
      );
      await agent.submit("make notes");
      // A new file is shown whole, as added lines, before anything is written.
      let screen = await agent.waitFor(/Apply this change\?/);
      assert.match(screen, /--- \/dev\/null\s+\+\+\+ b\/notes\.txt[\s\S]*\+one\s+\+two/);
      await assert.rejects(Deno.stat(`${agent.workdir}/notes.txt`));
      await agent.keys("Enter"); // Yes
      screen = await agent.waitFor("Created the file.");
      assert.match(screen, /⏺ .*notes\.txt/);
      assert.match(screen, /⎿ /);
      assert.equal(await Deno.readTextFile(`${agent.workdir}/notes.txt`), "one\ntwo\n");

      // An edit shows a unified diff; "yes for the session" covers the next str_replace.
      fake.enqueue(
        reply().tool("str_replace", { path: "notes.txt", old_str: "two", new_str: "2" }),
        reply().tool("str_replace", { path: "notes.txt", old_str: "one", new_str: "1" }),
        reply().text("Numbered."),
      );
      await agent.submit("use digits");
      screen = await agent.waitFor(/Apply this change\?/);
      assert.match(screen, /@@ -1,2 \+1,2 @@\s+one\s+-two\s+\+2/);
      await agent.keys("Down", "Enter");
      screen = await agent.waitFor("Numbered.");
      assert.match(screen, /allowed every str_replace call for this session/);
      assert.match(screen, /allowed for this session: every str_replace call/);
      assert.equal(await Deno.readTextFile(`${agent.workdir}/notes.txt`), "1\n2\n");

      // A shell call shows the command and where it runs; no, with a note for the model.
      fake.enqueue(
        reply().tool("shell", { command: "rm -rf build" }),
        reply().text("Understood, kept it."),
      );
      await agent.submit("clean up");
      screen = await agent.waitFor(/Run this command\?/);
      assert.match(screen, /\$ rm -rf build\s+\(in .+\)/);
      assert.match(screen, /allow commands starting `rm`/);
      await agent.keys("Down", "Down", "Enter");
      await agent.waitFor(/What should the agent do instead/);
      await agent.submit("keep the build folder");
      await agent.waitFor("Understood, kept it.");
      assert.equal(
        toolResults(fake.requests.at(-1)!.body).at(-1),
        "The user declined this action and said: keep the build folder",
      );

      // "Yes for the session" on a simple command: the next simple command with the same
      // program runs unasked; a compound one starting with it still asks, with no session row.
      fake.enqueue(
        reply().tool("shell", { command: "echo first" }),
        reply().tool("shell", { command: "echo second" }),
        reply().text("Echoed twice."),
      );
      await agent.submit("echo twice");
      screen = await agent.waitFor(/\$ echo first[\s\S]*Run this command\?/);
      assert.match(screen, /allow commands starting `echo`/);
      await agent.keys("Down", "Enter");
      screen = await agent.waitFor("Echoed twice.");
      assert.match(screen, /allowed shell commands starting echo for this session/);
      assert.match(screen, /allowed for this session: shell commands starting echo/);
      assert.doesNotMatch(screen, /\$ echo second/); // never shown as a question
      assert.match(toolResults(fake.requests.at(-1)!.body).at(-1)!, /second/);

      fake.enqueue(
        reply().tool("shell", { command: "echo third && echo fourth" }),
        reply().text("Chained."),
      );
      await agent.submit("chain them");
      screen = await agent.waitFor(/\$ echo third && echo fourth[\s\S]*Run this command\?/);
      const question = screen.slice(screen.lastIndexOf("$ echo third"));
      assert.doesNotMatch(question, /allowed for this session/);
      assert.doesNotMatch(question, /for the rest of this session/);
      await agent.keys("Enter"); // Yes, this once
      await agent.waitFor("Chained.");
      assert.match(toolResults(fake.requests.at(-1)!.body).at(-1)!, /third\s+fourth/);
      fake.assertNoViolations();
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

peerTest(
  "a diff longer than the screen is cut with the lines left counted; Show it all prints the rest",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ args: ["--mode", "strict"] });
    const { fake, agent } = s;
    await agent.idle();
    const text = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    fake.enqueue(
      reply().tool("create", { path: "long.txt", file_text: text }),
      reply().text("Wrote it."),
    );
    await agent.submit("write a long file");
    // 40 rows leave room for 30 lines: the 3 header lines and lines 1..27 of 200.
    let screen = await agent.waitFor(/Apply this change\?/);
    assert.match(screen, /\+\+\+ b\/long\.txt\s+@@ -1,0 \+1,200 @@\s+\+line 1\n/);
    assert.match(screen, /\+line 27\n\s*… 173 more lines\n/);
    assert.doesNotMatch(screen, /\+line 28\b/);
    assert.match(screen, /Show it all/);
    await agent.keys("Down", "Down", "Enter"); // Show it all
    screen = await agent.waitFor(/\+line 200\n[\s\S]*Apply this change\?/);
    for (const n of [28, 100, 173, 199]) assert.match(screen, new RegExp(`\\+line ${n}\\n`));
    await assert.rejects(Deno.stat(`${agent.workdir}/long.txt`));
    await agent.keys("Enter"); // Yes: the same question was asked again after the whole diff
    await agent.waitFor("Wrote it.");
    assert.equal(await Deno.readTextFile(`${agent.workdir}/long.txt`), text);
    fake.assertNoViolations();
  },
);

peerTest("ctrl+c interrupts a reply and the conversation goes on", probes.tmux, async () => {
  await using s = await fakeModelSession();
  const { fake, agent } = s;
  await agent.idle();
  fake.enqueue(reply().text("This reply starts and then").hang());
  await agent.submit("tell me a long story");
  await agent.waitFor("This reply starts and then");
  await agent.keys("C-c");
  await agent.waitFor("⏹ interrupted");
  await agent.idle();

  fake.enqueue(reply().text("Short answer."));
  await agent.submit("just the ending");
  await agent.waitFor("Short answer.");
  // The interrupted reply's partial text is kept as the assistant's turn between the two.
  const users = userTexts(fake.requests[1]!.body);
  assert.deepEqual(users, ["tell me a long story", "just the ending"]);
  assert.match(JSON.stringify(fake.requests[1]!.body), /This reply starts and then/);
  fake.assertNoViolations();
});

peerTest(
  "a trailing backslash continues the message; ↑ recalls earlier input",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession();
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Got both lines."), reply().text("Again."));
    await agent.submit("first line\\");
    await agent.waitFor(/…$/);
    await agent.submit("second line");
    await agent.waitFor("Got both lines.");
    assert.equal(lastUserText(fake.requests[0]!.body), "first line\nsecond line");

    // The two lines were one message: one history entry.
    await agent.keys("Up", "Enter");
    await agent.waitFor("Again.");
    assert.equal(lastUserText(fake.requests[1]!.body), "first line\nsecond line");

    // ctrl+c at an empty prompt asks for a second one; the session goes on meanwhile.
    await agent.keys("C-c");
    await agent.waitFor("press ctrl+c again within 2 s to quit");
    fake.enqueue(reply().text("Still here."));
    await agent.submit("are you there?");
    await agent.waitFor("Still here.");
    await agent.idle();
    // A message in between resets it: one ctrl+c asks again, the second quits.
    await agent.keys("C-c");
    await agent.waitFor(/press ctrl\+c again within 2 s to quit[\s\S]*press ctrl\+c again/);
    // Once the 2 s have passed, a ctrl+c asks again instead of quitting.
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    await agent.keys("C-c");
    await agent.waitFor(/(press ctrl\+c again within 2 s to quit[\s\S]*){3}/);
    await agent.keys("C-c");
    assert.equal(await agent.waitForExit(), 0);
  },
);

peerTest(
  "the ask tool is answered in a picker; a headless run waiting for a human resumes here",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    const agent = await TmuxAgent.start({ env: { ...QUIET, AGENT_BASE_URL: fake.url } });
    try {
      await agent.idle();
      fake.enqueue(
        reply().tool("ask", {
          questions: [{ kind: "question", text: "Which color?", options: ["red", "blue"] }],
        }),
        reply().text("Blue it is."),
      );
      await agent.submit("paint it");
      await agent.waitFor(/Which color\?[\s\S]*❯ red[\s\S]*blue[\s\S]*something else…/);
      await agent.keys("Down", "Enter");
      await agent.waitFor("Blue it is.");
      assert.equal(toolResults(fake.requests[1]!.body).at(-1), "The operator answered: blue");
    } finally {
      await agent.close();
    }

    // A headless run stops for a human (exit 2); the interactive session picks it up.
    const home = await tempHome();
    try {
      fake.enqueue(
        reply().tool("ask", { questions: [{ kind: "question", text: "Ship it on Friday?" }] }),
      );
      const run = await runAgent(["-p", "--output-format", "json", "--", "plan the release"], {
        home,
        ...QUIET,
        AGENT_BASE_URL: fake.url,
      });
      assert.equal(run.code, 2, run.stderr);
      const id = JSON.parse(run.stdout).session_id as string;
      const resumed = await TmuxAgent.start({
        home,
        args: ["--resume", id],
        env: { ...QUIET, AGENT_BASE_URL: fake.url },
      });
      try {
        const screen = await resumed.idle();
        assert.match(screen, /The session was waiting for:\s+\? Ship it on Friday\?/);
        fake.enqueue(reply().text("Friday it is."));
        await resumed.submit("yes, Friday");
        await resumed.waitFor("Friday it is.");
        assert.equal(
          toolResults(fake.requests.at(-1)!.body).at(-1),
          "The operator answered: yes, Friday",
        );
        fake.assertNoViolations();
      } finally {
        await resumed.close();
      }
    } finally {
      await Deno.remove(home, { recursive: true });
      await fake.close();
    }
  },
);

peerTest("NO_COLOR turns every color off, the prompt library included", probes.tmux, async () => {
  const fake = await startFakeModelServer();
  for (const noColor of ["1", ""]) {
    const agent = await TmuxAgent.start({
      env: { ...QUIET, AGENT_BASE_URL: fake.url, NO_COLOR: noColor },
    });
    try {
      await agent.idle();
      await agent.submit("/effort high"); // an @inquirer prompt, colored by the library
      await agent.waitFor(/Set reasoning effort to high\?/);
      const screen = await agent.screen({ escapes: true });
      if (noColor) assert.ok(!screen.includes("\x1b["), JSON.stringify(screen));
      else assert.ok(screen.includes("\x1b[2m") && screen.includes("\x1b[36mfake-model"), screen);
      await agent.keys("n", "Enter");
      await agent.idle();
    } finally {
      await agent.close();
    }
  }
  await fake.close();
});

Deno.test("without a terminal, agent (no -p) says to use -p and exits 1", async () => {
  const home = await tempHome();
  try {
    const run = await runAgent([], { home, AGENT_BASE_URL: "http://127.0.0.1:9/v1" });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'agent: an interactive session needs a terminal on stdin and stdout; for scripts use agent -p -- "PROMPT"\n',
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

peerTest(
  "with no settings the banner names the built-in endpoint and model and how to change them",
  probes.tmux,
  async () => {
    const agent = await TmuxAgent.start({ env: { ...QUIET, OPENAI_API_KEY: "sk-unused" } });
    try {
      const screen = await agent.idle();
      assert.match(
        screen,
        /built-in default: https:\/\/api\.openai\.com\/v1 with gpt-4\.1; \/providers picks another/,
      );
    } finally {
      await agent.close();
    }
  },
);
