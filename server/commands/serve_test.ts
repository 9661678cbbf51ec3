import assert from "node:assert/strict";
import { envFrom } from "../../core/ports.ts";
import { resolveAgentCommand, serveConfig } from "./serve.ts";

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
