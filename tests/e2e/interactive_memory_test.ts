// Quitting an interactive session: memory reflection runs first (bounded; a second ctrl+c or
// esc skips it); /memory runs it mid-session even when automatic reflection is off.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { TmuxAgent } from "./interactive_tmux.ts";
import { tempHome } from "./agent_process.ts";

const NOTE = "---\ncategory: preference\n---\n# Indentation\nThe user wants tabs, not spaces.\n";

function isReflection(body: Record<string, unknown> | null): boolean {
  return /memory reflection pass/.test(JSON.stringify(body?.system ?? body?.messages ?? ""));
}

peerTest("ctrl+q quits after a reflection pass that writes memory", probes.tmux, async () => {
  const fake = await startFakeModelServer();
  const agent = await TmuxAgent.start({ env: { AGENT_BASE_URL: fake.url } });
  try {
    await agent.idle();
    fake.enqueue(reply().text("Noted: tabs."), reply().text("Noted: everywhere."));
    await agent.submit("I always indent with tabs");
    await agent.waitFor("Noted: tabs.");
    await agent.idle();
    // Two messages: more than the short exchange that is not worth a reflection.
    await agent.submit("in every language");
    await agent.waitFor("Noted: everywhere.");
    await agent.idle();

    fake.enqueue(
      reply().tool("memory", {
        command: "create",
        path: "/memories/preferences/indentation.md",
        file_text: NOTE,
      }),
      reply().text("Recorded the indentation preference."),
    );
    await agent.keys("C-q");
    const screen = await agent.waitFor("memory reflection done (1 memory call)");
    assert.match(
      screen,
      /Reflecting on the session to update memory \(up to 20 s; ctrl\+c or esc skips\)/,
    );
    assert.match(screen, /⏺ .*indentation\.md/);
    assert.equal(await agent.waitForExit(), 0);
    assert.ok(isReflection(fake.requests[2]!.body));
    // The reflection saw the whole conversation.
    assert.match(JSON.stringify(fake.requests[2]!.body!.messages), /I always indent with tabs/);
    const saved = await Deno.readTextFile(`${agent.agentHome}/memory/preferences/indentation.md`);
    assert.match(saved, /The user wants tabs, not spaces\./);
    fake.assertNoViolations();
  } finally {
    await agent.close();
    await fake.close();
  }
});

peerTest(
  "a second ctrl+c (or esc) skips a slow reflection and the session ends",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    const agent = await TmuxAgent.start({ env: { AGENT_BASE_URL: fake.url } });
    try {
      await agent.idle();
      fake.enqueue(reply().text("Sure."), reply().text("Again."));
      await agent.submit("hello");
      await agent.waitFor("Sure.");
      await agent.idle();
      await agent.submit("and again");
      await agent.waitFor("Again.");
      await agent.idle();

      fake.enqueue(reply().text("Still thinking about what to").hang());
      await agent.submit("/quit");
      await agent.waitFor("Reflecting on the session");
      await fake.waitForRequests(3);
      await agent.keys("C-c");
      await agent.waitFor("memory reflection skipped");
      assert.equal(await agent.waitForExit(), 0);
      const files = [...Deno.readDirSync(`${agent.agentHome}/memory`)].filter((e) =>
        e.name.endsWith(".md")
      );
      assert.deepEqual(files, []);
    } finally {
      await agent.close();
      await fake.close();
    }

    const fake2 = await startFakeModelServer();
    const again = await TmuxAgent.start({ env: { AGENT_BASE_URL: fake2.url } });
    try {
      await again.idle();
      fake2.enqueue(
        reply().text("Sure."),
        reply().text("Again."),
        reply().text("slow").hang(),
      );
      await again.submit("hello");
      await again.waitFor("Sure.");
      await again.idle();
      await again.submit("and again");
      await again.waitFor("Again.");
      await again.idle();
      await again.keys("C-c"); // at an empty prompt: twice quits
      await again.waitFor("press ctrl+c again");
      await again.keys("C-c");
      await again.waitFor("Reflecting on the session");
      await fake2.waitForRequests(3);
      await again.keys("Escape");
      await again.waitFor("memory reflection skipped");
      assert.equal(await again.waitForExit(), 0);
    } finally {
      await again.close();
      await fake2.close();
    }
  },
);

peerTest(
  "/memory reflects mid-session even with automatic reflection off; quit then skips it",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    const agent = await TmuxAgent.start({
      env: { AGENT_BASE_URL: fake.url, AGENT_MEMORY_REFLECT: "0" },
    });
    try {
      await agent.idle();
      fake.enqueue(reply().text("Okay."));
      await agent.submit("the build command is make ci");
      await agent.waitFor("Okay.");
      await agent.idle();

      fake.enqueue(
        reply().tool("memory", {
          command: "create",
          path: "/memories/facts/build.md",
          file_text: "---\ncategory: project-fact\n---\n# Build\nRun `make ci`.\n",
        }),
        reply().text("Recorded the build command."),
      );
      await agent.submit("/memory");
      await agent.waitFor("memory reflection done (1 memory call)");
      await agent.waitFor("/reload puts the updated memory index into the prompt");
      await agent.submit("/reload");
      await agent.waitFor(/memory index reloaded \(\d+ lines\)/);
      fake.enqueue(reply().text("Using the build note."));
      await agent.submit("what builds it?");
      await agent.waitFor("Using the build note.");
      // The reloaded system prompt lists the new memory file.
      assert.match(JSON.stringify(fake.requests.at(-1)!.body!.system), /build\.md/);

      await agent.submit("/exit");
      assert.equal(await agent.waitForExit(), 0);
      assert.equal(fake.requests.length, 4); // no reflection on quit
      fake.assertNoViolations();
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

peerTest("/memory init builds memory from the repository's files", probes.tmux, async () => {
  const fake = await startFakeModelServer();
  const agent = await TmuxAgent.start({
    env: { AGENT_BASE_URL: fake.url, AGENT_MEMORY_REFLECT: "0" },
  });
  try {
    await Deno.writeTextFile(`${agent.workdir}/README.md`, "# Widget\n\nWidget renders widgets.\n");
    await Deno.writeTextFile(
      `${agent.workdir}/AGENTS.md`,
      "Run `deno task ok` before committing.\n",
    );
    await agent.idle();
    fake.enqueue(
      reply().tool("memory", {
        command: "create",
        path: "/memories/facts/widget.md",
        file_text: "---\ncategory: project-fact\n---\n# Widget\nChecks: `deno task ok`.\n",
      }),
      reply().text("Bootstrapped."),
    );
    await agent.submit("/memory init");
    await agent.waitFor(/\/memory init read AGENTS\.md, README\.md and made 1 memory call\b/);
    await agent.waitFor(/memory index reloaded/);
    const request = JSON.stringify(fake.requests[0]!.body!.messages);
    assert.match(request, /Run `deno task ok` before committing/);
    assert.match(request, /Widget renders widgets/);
    const saved = await Deno.readTextFile(`${agent.agentHome}/memory/facts/widget.md`);
    assert.match(saved, /deno task ok/);
    await agent.submit("/memory nonsense");
    await agent.waitFor('Unknown /memory command "nonsense": use /memory or /memory init.');
    fake.assertNoViolations();
  } finally {
    await agent.close();
    await fake.close();
  }
});

peerTest(
  "strict mode: quit skips reflection (memory edits need approval) and /memory is refused",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    const agent = await TmuxAgent.start({
      env: { AGENT_BASE_URL: fake.url, AGENT_MEMORY_REFLECT: "1" },
      args: ["--mode", "strict"],
    });
    try {
      await agent.idle();
      fake.enqueue(reply().text("Noted: tabs."));
      await agent.submit("I always indent with tabs");
      await agent.waitFor("Noted: tabs.");
      await agent.idle();
      await agent.submit("/memory");
      await agent.waitFor("/memory not run (strict mode: memory edits need approval)");
      // What a pass would write if one ran.
      fake.enqueue(
        reply().tool("memory", {
          command: "create",
          path: "/memories/preferences/indentation.md",
          file_text: NOTE,
        }),
        reply().text("Recorded."),
      );
      await agent.keys("C-q");
      await agent.waitFor("memory reflection skipped: strict mode: memory edits need approval");
      assert.equal(await agent.waitForExit(), 0);
      assert.equal(fake.requests.length, 1);
      const files = [...Deno.readDirSync(`${agent.agentHome}/memory`)].filter((e) =>
        e.name !== ".index"
      );
      assert.deepEqual(files, []);
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

peerTest(
  "a memory_dir that is a file stops the start with one line naming it",
  probes.tmux,
  async () => {
    const home = await tempHome();
    const agent = await (async () => {
      await Deno.writeTextFile(`${home}/memfile`, "not a directory\n");
      return await TmuxAgent.start({
        home,
        env: { AGENT_BASE_URL: "http://127.0.0.1:9", AGENT_MEMORY_DIR: `${home}/memfile` },
      });
    })();
    try {
      assert.equal(await agent.waitForExit(), 1);
      const lines = (await agent.screen()).split("\n").filter((l) => l.trim() !== "");
      const error = lines.filter((l) => l.startsWith("agent:"));
      assert.equal(error.length, 1, lines.join("\n"));
      assert.match(error[0]!, /^agent: memory_dir .*memfile \(from env AGENT_MEMORY_DIR\)/);
      assert.doesNotMatch(lines.join("\n"), /os error/);
    } finally {
      await agent.close();
      await Deno.remove(home, { recursive: true });
    }
  },
);

peerTest(
  "quitting after a short exchange with no tool call costs no reflection call",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    const agent = await TmuxAgent.start({
      env: { AGENT_BASE_URL: fake.url, NO_COLOR: "1" },
      width: 60,
    });
    try {
      await agent.idle();
      fake.enqueue(reply().text("Hi there."));
      await agent.submit("hello");
      await agent.waitFor("Hi there.");
      await agent.idle();
      await agent.keys("C-d");
      await agent.waitFor("memory reflection skipped: a short exchange with no tool call");
      assert.equal(await agent.waitForExit(), 0);
      assert.equal(fake.requests.length, 1);
      assert.doesNotMatch(await agent.screen(), /Reflecting on the session/);
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);
