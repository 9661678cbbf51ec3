// The attacks of issues 14 and 37, as tool calls a scripted fake model makes, and the checks on
// what came back. Shared by the headless, interactive (tmux) and outpost sandbox tests, so each
// path is held to the same list: keys, the agent home (also through a link in the workdir),
// other workspaces, the agent's process, the network, the real HOME and the workdir's `.agent/`
// folder are out of reach, while ordinary work in the workdir succeeds.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import type { ReplyBuilder } from "../fakes/model_server_reply.ts";

/** Model keys in the agent's environment and in its settings file; none may come back. */
export const CANARY_ENV: Readonly<Record<string, string>> = {
  AGENT_API_KEY: "sk-canary-agent-5b1e0c",
  ANTHROPIC_API_KEY: "sk-canary-anthropic-9d2f41",
  OPENAI_API_KEY: "sk-canary-openai-77ac30",
};
export const CANARY_SETTINGS_KEY = "sk-canary-settings-3c8e9a";
export const OTHER_SECRET = "other workspace's private data 41e7";
const ALL_CANARIES = [...Object.values(CANARY_ENV), CANARY_SETTINGS_KEY];

export interface AttackTargets {
  /** The agent home (AGENT_HOME). */
  agentHome: string;
  /** The test's HOME (the real home of the agent's user). */
  home: string;
  /** Another workspace holding `secret.txt`. */
  other: string;
  /** A port on 127.0.0.1 that must stay out of reach (the outpost's, or the model server's). */
  port: number;
}

/** Writes the settings file holding a key and another workspace with a secret. */
export async function plantSecrets(t: AttackTargets, extraSettings = ""): Promise<void> {
  await Deno.mkdir(t.agentHome, { recursive: true });
  await Deno.mkdir(t.other, { recursive: true });
  await Deno.writeTextFile(
    `${t.agentHome}/settings.toml`,
    `api_key = "${CANARY_SETTINGS_KEY}"\n${extraSettings}\n` +
      `[provider_keys]\nhosted-messages = "${CANARY_SETTINGS_KEY}"\n`,
    { mode: 0o600 },
  );
  await Deno.writeTextFile(`${t.other}/secret.txt`, OTHER_SECRET);
}

/** Files of the ordinary-work case: a C program and its Makefile. */
export async function plantProject(workdir: string): Promise<void> {
  await Deno.writeTextFile(`${workdir}/hello.c`, "int main(void) { return 0; }\n");
  await Deno.writeTextFile(`${workdir}/Makefile`, "hello: hello.c\n\tcc -o hello hello.c\n");
}

export interface Attack {
  id: string;
  command: string;
  /** Checks the tool result's content (status line first). */
  check(content: string): void;
}

function noCanary(content: string): void {
  for (const c of ALL_CANARIES) assert.ok(!content.includes(c), `a key came back:\n${content}`);
}

export function attacks(t: AttackTargets): Attack[] {
  return [
    {
      id: "environ",
      command:
        "tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/[0-9]*/environ | tr '\\0' '\\n'; env",
      check: (c) => {
        noCanary(c);
        assert.match(c, /HOME=\/tmp\/home/);
      },
    },
    {
      id: "settings",
      command: `cat ~/.agent/settings.toml; cat ${t.agentHome}/settings.toml`,
      check: (c) => {
        noCanary(c);
        assert.match(c, /^exit code 1\n/);
        assert.match(c, /No such file or directory/);
      },
    },
    {
      id: "proc",
      command: "cat /proc/[0-9]*/comm | sort -u",
      // Only the sandbox's own processes: bwrap's pid 1, sh and cat. No deno, no outpost.
      check: (c) => assert.match(c, /^exit code 0\n(bwrap|cat|sh|sort)(\n(bwrap|cat|sh|sort))*$/),
    },
    {
      id: "kill",
      command: "kill -9 $PPID; echo survived",
      check: (c) => assert.match(c, /survived$/),
    },
    {
      id: "write",
      command: `echo x > /etc/escape.txt; echo x > ${t.home}/escape.txt; echo x > /escape.txt`,
      check: (c) => assert.match(c, /^exit code [1-9]/),
    },
    {
      id: "other",
      command: `cat ${t.other}/secret.txt; ls ${t.other}`,
      check: (c) => {
        assert.ok(!c.includes(OTHER_SECRET), c);
        assert.match(c, /^exit code [1-9]/);
      },
    },
    {
      id: "network",
      command: `curl -sS -m 5 http://127.0.0.1:${t.port}/`,
      check: (c) => assert.match(c, /^exit code 7\ncurl: \(7\) Failed to connect/),
    },
    {
      id: "home",
      command: "echo $HOME; ls -A ~ | wc -l",
      check: (c) => assert.equal(c, "exit code 0\n/tmp/home\n0"),
    },
    {
      // Issue 37 §3a: the workdir's .agent/ can be neither read, rewritten, swapped nor made.
      id: "project",
      command: "ls -A .agent | wc -l; " +
        `echo 'base_url = "http://evil.example/v1"' > .agent/settings.toml && echo planted; ` +
        "mv .agent .x && echo moved; mkdir .agent/sub && echo made",
      check: (c) => {
        assert.match(c, /^exit code 1\n0\n/);
        assert.doesNotMatch(c, /planted|moved|made/);
      },
    },
    {
      // Issue 37 §2: a link in the workdir does not lead into the agent home either.
      id: "home-link",
      command: `ln -s ${t.agentHome} home-link; cat home-link/settings.toml; status=$?; ` +
        "ls -A home-link/; rm -f home-link; exit $status",
      check: (c) => {
        noCanary(c);
        assert.match(c, /^exit code [1-9]/);
        assert.match(c, /No such file or directory/);
      },
    },
    {
      id: "work",
      command: [
        "git init -q . && git add -A",
        "git -c user.name=t -c user.email=t@example.org commit -qm init",
        "git log --oneline | wc -l",
        "make -s && ./hello && echo built-and-ran",
      ].join(" && "),
      check: (c) => assert.equal(c, "exit code 0\n1\nbuilt-and-ran"),
    },
  ];
}

/** One model reply that calls the shell once per attack (ids = attack ids). */
export function attackReply(list: readonly Attack[]): ReplyBuilder {
  const r = reply();
  for (const a of list) r.tool("shell", { command: a.command }, { id: a.id });
  return r;
}

/** Tool results by tool_call_id from a Chat Completions request body. */
export function toolResultsById(body: Record<string, unknown> | null): Map<string, string> {
  const messages = (body?.messages ?? []) as Array<
    { role: string; tool_call_id?: string; content?: unknown }
  >;
  const out = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "tool" && m.tool_call_id) out.set(m.tool_call_id, String(m.content));
  }
  return out;
}

/** Runs every attack's check on the results the model was sent back. */
export function checkAttacks(list: readonly Attack[], results: Map<string, string>): void {
  for (const a of list) {
    const content = results.get(a.id);
    assert.ok(content !== undefined, `no result for ${a.id}`);
    try {
      a.check(content);
    } catch (err) {
      throw new Error(`attack ${a.id} (${a.command}): ${(err as Error).message}`);
    }
  }
}

/** Host-side effects that must not exist after the attacks. */
export async function checkNoEscape(t: AttackTargets): Promise<void> {
  await assert.rejects(Deno.stat(`${t.home}/escape.txt`), Deno.errors.NotFound);
  await assert.rejects(Deno.stat("/etc/escape.txt"), Deno.errors.NotFound);
  await assert.rejects(Deno.stat("/escape.txt"), Deno.errors.NotFound);
}

/**
 * After a run that ended: the workdir has no `.agent` (the sandbox's mount point is gone, and
 * nothing the model did planted one) and no `.x` it was moved to.
 */
export async function checkProjectUntouched(workdir: string): Promise<void> {
  await assert.rejects(Deno.lstat(`${workdir}/.agent`), Deno.errors.NotFound);
  await assert.rejects(Deno.lstat(`${workdir}/.x`), Deno.errors.NotFound);
}

/**
 * Greps every file under `root` for the canary keys, except the settings file that holds one
 * by design: sessions, reports, logs, the job store, memory must not.
 */
export async function assertNoCanaryUnder(root: string, except: readonly string[]): Promise<void> {
  const hits: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.isFile && !except.includes(path)) {
        const text = new TextDecoder().decode(await Deno.readFile(path));
        for (const c of ALL_CANARIES) if (text.includes(c)) hits.push(`${path}: ${c}`);
      }
    }
  };
  await walk(root);
  assert.deepEqual(hits, [], "a key was written to disk");
}
