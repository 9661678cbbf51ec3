import assert from "node:assert/strict";
import { envFrom } from "../../core/ports.ts";
import { FakeSpawner } from "../../tests/fakes/spawner.ts";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { runOutpost } from "./outpost_cli.ts";

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (l: string): void => void out.push(l),
      err: (l: string): void => void err.push(l),
      env: envFrom(env),
      clock: new FakeClock("2026-03-02T09:00:00Z"),
      spawner: () => Promise.resolve(new FakeSpawner()),
      fetch: () => Promise.reject(new Error("no network in tests")),
      shutdownSignal: (): Promise<string> => Promise.resolve("SIGTERM"),
      execPath: "/usr/bin/deno",
    },
  };
}

Deno.test("agent-outpost --help and --version", async () => {
  const h = io();
  assert.equal(await runOutpost(["--help"], h.io), 0);
  assert.match(h.out.join("\n"), /agent-outpost \[serve\]/);
  assert.match(h.out.join("\n"), /token create <name>/);
  const v = io();
  assert.equal(await runOutpost(["--version"], v.io), 0);
  assert.match(v.out[0]!, /^agent-outpost \d+\.\d+\.\d+$/);
  for (const args of [["serve", "--help"], ["schedule", "--help"], ["token", "--help"]]) {
    const c = io({ AGENT_HOME: "/nonexistent-home" });
    assert.equal(await runOutpost(args, c.io), 0, args.join(" "));
    assert.match(c.out[0]!, /^usage: agent-outpost/);
  }
});

Deno.test("agent-outpost: unknown commands and bad flags are one line and exit 1", async () => {
  for (
    const [args, pattern] of [
      [["frobnicate"], /unknown command "frobnicate"/],
      [["schedule", "list"], /unknown schedule command/],
      [["schedule", "next", "--kind", "weekly", "--expr", "1h"], /--kind/],
      [["--port", "99999"], /--port/],
      [["serve", "--bogus"], /see --help/],
    ] as const
  ) {
    const c = io({ AGENT_HOME: "/nonexistent-home" });
    assert.equal(await runOutpost([...args], c.io), 1, args.join(" "));
    assert.equal(c.err.length, 1, c.err.join("|"));
    assert.match(c.err[0]!, pattern);
  }
  const noHome = io({});
  assert.equal(await runOutpost(["token", "list"], noHome.io), 1);
  assert.match(noHome.err[0]!, /AGENT_HOME/);
  const rangerNoHome = io({});
  assert.equal(await runOutpost(["ranger", "init"], rangerNoHome.io), 1);
  assert.equal(rangerNoHome.err.length, 1, rangerNoHome.err.join("|"));
  assert.match(rangerNoHome.err[0]!, /AGENT_HOME/);
});

Deno.test("agent-outpost schedule next prints fires", async () => {
  const c = io();
  const code = await runOutpost([
    "schedule",
    "next",
    "--kind",
    "every",
    "--expr",
    "2h",
    "--count",
    "2",
  ], c.io);
  assert.equal(code, 0);
  assert.deepEqual(c.out, ["2026-03-02T11:00:00Z", "2026-03-02T13:00:00Z"]);
});

Deno.test("agent-outpost serve starts on port 0, prints the URL, serves, and shuts down on the signal", async () => {
  const home = await Deno.makeTempDir();
  try {
    let stop!: (sig: string) => void;
    const c = io({ AGENT_HOME: home, PATH: "/usr/bin:/bin" });
    const listening = new Promise<string>((resolve) => {
      c.io.out = (l: string) => {
        c.out.push(l);
        const m = /listening on (\S+)/.exec(l);
        if (m) resolve(m[1]!);
      };
    });
    c.io.shutdownSignal = () => new Promise((resolve) => (stop = resolve));
    const done = runOutpost(["serve", "--port", "0"], c.io);
    const url = await listening;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const res = await fetch(`${url}api/jobs`);
    assert.deepEqual(await res.json(), { jobs: [] });
    stop("SIGTERM");
    assert.equal(await done, 0);
    assert.match(c.err.join("\n"), /SIGTERM: shutting down/);
    await Deno.stat(`${home}/outpost/outpost.db`);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
