import assert from "node:assert/strict";
import { MemoryLogger } from "../../core/logger.ts";
import { envFrom } from "../../core/ports.ts";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { FakeSpawner } from "../../tests/fakes/spawner.ts";
import { dashboardApi } from "../../tests/e2e/outpost_process_kit.ts";
import { resolveAgentCommand, runServe, serveConfig } from "./serve.ts";

Deno.test("serve config: defaults 127.0.0.1:7317, env next, flags win", () => {
  assert.deepEqual(serveConfig([], envFrom({})), { host: "127.0.0.1", port: 7317, baseUrl: null });
  const env = envFrom({ AGENT_OUTPOST_HOST: "0.0.0.0", AGENT_OUTPOST_PORT: "8080" });
  assert.deepEqual(serveConfig([], env), { host: "0.0.0.0", port: 8080, baseUrl: null });
  assert.deepEqual(serveConfig(["--port", "0", "--host", "::1"], env), {
    host: "::1",
    port: 0,
    baseUrl: null,
  });
  assert.equal(
    (serveConfig(["--base-url", "https://outpost.example.org/"], env) as { baseUrl: string })
      .baseUrl,
    "https://outpost.example.org",
  );
  assert.equal(serveConfig(["--help"], env), "help");
});

Deno.test("serve config: bad values are refused naming the flag or variable", () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--port", "70000"], {}, /--port/],
    [["--port", "eighty"], {}, /--port/],
    [[], { AGENT_OUTPOST_PORT: "-1" }, /AGENT_OUTPOST_PORT/],
    [["--host", "bad host"], {}, /--host/],
    [["--base-url", "ftp://x"], {}, /--base-url/],
    [["stray"], {}, /unexpected argument/],
    [
      [],
      { AGENT_OUTPOST_ALLOWED_HOSTS: "ok.example, https://x.example" },
      /ALLOWED_HOSTS.*x\.example/,
    ],
  ];
  for (const [args, env, pattern] of cases) {
    assert.throws(() => serveConfig(args, envFrom(env)), pattern, args.join(" "));
  }
});

Deno.test("agent command: AGENT_OUTPOST_AGENT_BIN, else deno run with the agent's flags, else a sibling binary", () => {
  assert.deepEqual(
    resolveAgentCommand(
      envFrom({ AGENT_OUTPOST_AGENT_BIN: "/usr/local/bin/agent" }),
      "/usr/bin/deno",
    ),
    { command: "/usr/local/bin/agent", args: [] },
  );
  const dev = resolveAgentCommand(envFrom({}), "/opt/deno/bin/deno", "/src");
  assert.equal(dev.command, "/opt/deno/bin/deno");
  assert.equal(dev.args[0], "run");
  assert.ok(dev.args.includes("--deny-ffi"));
  assert.equal(dev.args.at(-1), "/src/cli/main.ts");
  assert.deepEqual(resolveAgentCommand(envFrom({}), "/usr/local/bin/agent-outpost"), {
    command: "/usr/local/bin/agent",
    args: [],
  });
});

Deno.test("serve: new jobs default to the endpoint of the resolved settings (job form and API)", async () => {
  const home = await Deno.makeTempDir({ prefix: "serve_defaults_" });
  let shutdown!: (sig: string) => void;
  const out: string[] = [];
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const served = runServe(["--port", "0"], {
    out: (line) => {
      out.push(line);
      const m = /listening on (\S+)/.exec(line);
      if (m) listening(m[1]!);
    },
    err: () => {},
    // The endpoint comes from the settings layers (env here), not from the outpost's flags.
    env: envFrom({
      AGENT_HOME: home,
      AGENT_BASE_URL: "http://10.0.0.5:8000/v1",
      AGENT_MODEL: "qwen3-32b",
    }),
    clock: new FakeClock("2026-03-02T09:00:00Z"),
    spawner: new FakeSpawner(),
    fetch: () => Promise.reject(new Error("no network in this test")),
    logger: new MemoryLogger(),
    shutdownSignal: new Promise((resolve) => (shutdown = resolve)),
    execPath: "/usr/local/bin/agent-outpost",
  });
  try {
    const base = await Promise.race([
      url,
      served.then((code) => Promise.reject(new Error(`serve exited ${code}: ${out}`))),
    ]);
    const page = await (await fetch(base)).text();
    assert.match(page, /id="f-base_url"[^>]*value="http:\/\/10\.0\.0\.5:8000\/v1"/);
    assert.match(page, /id="f-model"[^>]*value="qwen3-32b"/);

    // A job created without an endpoint snapshots the same defaults.
    const api = await dashboardApi(base);
    const res = await api("POST", "api/jobs", {
      name: "nightly",
      prompt: "summarize",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: await Deno.realPath(Deno.cwd()),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.job.base_url, "http://10.0.0.5:8000/v1");
    assert.equal(res.json.job.model, "qwen3-32b");
  } finally {
    shutdown("SIGTERM");
    assert.equal(await served, 0);
    await Deno.remove(home, { recursive: true });
  }
});
