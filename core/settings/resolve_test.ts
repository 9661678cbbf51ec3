import assert from "node:assert/strict";
import { join } from "../path.ts";
import { envFrom } from "../ports.ts";
import { SettingsError } from "./errors.ts";
import { agentHome, findProjectSettingsFile } from "./project.ts";
import { type Flags, resolveSettings } from "./resolve.ts";
import { type Layout, withLayout, writeFile } from "../../tests/fakes/settings_layout.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";
import { fifoWithWriter } from "../../tests/fakes/hostile_report.ts";

function resolveIn(l: Layout, opts: { flags?: Flags; env?: Record<string, string> } = {}) {
  return resolveSettings({
    flags: opts.flags ?? {},
    env: envFrom(opts.env ?? {}),
    cwd: l.cwd,
    home: l.home,
  });
}

function throwsSettings(fn: () => unknown, check: (e: SettingsError) => void): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SettingsError, `expected SettingsError, got ${e}`);
    assert.equal(e.name, "SettingsError");
    check(e);
    return true;
  });
}

Deno.test("defaults: nothing set anywhere", () =>
  withLayout((l) => {
    const s = resolveIn(l);
    assert.equal(s.provider, "chat_completions");
    assert.equal(s.model, "gpt-4.1");
    assert.equal(s.base_url, undefined);
    assert.equal("request_priority" in s, false, "request_priority is absent, not 0");
    assert.equal("compaction_threshold" in s, false, "compaction.threshold is unset");
    assert.equal(s.thinking_type, "adaptive");
    assert.equal(s.strict_tools, false);
    assert.equal(s.pricing_enabled, false);
    assert.equal(s.memory_enabled, true);
    assert.equal(s.memory_reflect, true);
    assert.equal(s.memory_dir, join(l.home, "memory"));
    assert.deepEqual(s.provider_keys, {});
    assert.deepEqual(s.model_favorites, []);
    assert.deepEqual(s.providers.map((p) => p.id), ["hosted-messages", "messages-gateway"]);
    assert.deepEqual(s.files, { global: l.globalFile });
    assert.deepEqual(s.warnings, []);
  }));

Deno.test("the result is deeply frozen", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `model_favorites = ["a"]\n[provider_keys]\nx = "k"`);
    const s = resolveIn(l);
    assert.ok(Object.isFrozen(s));
    assert.throws(() => {
      (s as { model: string }).model = "x";
    }, TypeError);
    assert.throws(() => (s.model_favorites as string[]).push("b"), TypeError);
    assert.throws(() => {
      (s.provider_keys as Record<string, string>).y = "k";
    }, TypeError);
    assert.throws(() => {
      (s.sources as Record<string, unknown>).model = {};
    }, TypeError);
    assert.ok(Object.isFrozen(s.sources.model));
    assert.ok(Object.isFrozen(s.providers[0]));
  }));

Deno.test("global-only keys in the project file are ignored with a warning", () =>
  withLayout(async (l) => {
    await writeFile(
      l.globalFile,
      `api_key = "global-key"\nmemory_dir = "/g/mem"\n[provider_keys]\na = "ka"`,
    );
    await writeFile(
      l.projectFile,
      [
        `api_key = "evil"`,
        `memory_dir = "/p/mem"`,
        `model_favorites = ["x"]`,
        `[provider_keys]`,
        `a = "evil"`,
        `[[providers]]`,
        `id = "p"`,
        `base_url = "http://evil.test"`,
      ].join("\n"),
    );
    const s = resolveIn(l);
    assert.equal(s.api_key, "global-key");
    assert.equal(s.memory_dir, "/g/mem");
    assert.deepEqual(s.model_favorites, []);
    assert.deepEqual(s.provider_keys, { a: "ka" });
    assert.equal(s.providers.some((p) => p.id === "p"), false);
    for (const key of ["api_key", "memory_dir", "model_favorites", "provider_keys", "providers"]) {
      assert.ok(
        s.warnings.some((w) => w.includes(l.projectFile) && w.includes(`${key} is global-only`)),
        `warning for ${key}: ${s.warnings.join(" | ")}`,
      );
    }
  }));

Deno.test("memory_enabled and memory_reflect are honored in the project file", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `memory_enabled = true\nmemory_reflect = true`);
    await writeFile(l.projectFile, `memory_enabled = false\nmemory_reflect = false`);
    const s = resolveIn(l);
    assert.equal(s.memory_enabled, false);
    assert.equal(s.memory_reflect, false);
    assert.equal(s.sources.memory_enabled?.kind, "project");
    assert.deepEqual(s.warnings, []);
  }));

Deno.test("AGENT_MEMORY_REFLECT=0 disables, AGENT_STRICT_TOOLS=1 enables, AGENT_PRICING 1/0", () =>
  withLayout(async (l) => {
    let s = resolveIn(l, {
      env: { AGENT_MEMORY_REFLECT: "0", AGENT_STRICT_TOOLS: "1", AGENT_PRICING: "1" },
    });
    assert.equal(s.memory_reflect, false);
    assert.equal(s.strict_tools, true);
    assert.equal(s.pricing_enabled, true);
    await writeFile(l.globalFile, `pricing_enabled = true`);
    s = resolveIn(l, { env: { AGENT_PRICING: "0" } });
    assert.equal(s.pricing_enabled, false);
    for (const [word, value] of [["ON", true], ["off", false], ["Yes", true], ["no", false]]) {
      s = resolveIn(l, { env: { AGENT_ENABLE_THINKING: word as string } });
      assert.equal(s.enable_thinking, value, word as string);
    }
  }));

Deno.test("an empty env var counts as unset", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `model = "m"`);
    const s = resolveIn(l, { env: { AGENT_MODEL: "", AGENT_TEMPERATURE: "  " } });
    assert.equal(s.model, "m");
    assert.equal(s.temperature, undefined);
  }));

Deno.test("wire selection (spec 4.3 rule 1)", async (t) => {
  await t.step(
    "base_url from any source without provider selects messages",
    () =>
      withLayout(async (l) => {
        assert.equal(resolveIn(l, { flags: { "base-url": "http://h:1/v1" } }).provider, "messages");
        assert.equal(resolveIn(l, { env: { AGENT_BASE_URL: "http://h:1" } }).provider, "messages");
        await writeFile(l.projectFile, `base_url = "http://h:1"`);
        const s = resolveIn(l);
        assert.equal(s.provider, "messages");
        assert.equal(s.sources.provider?.kind, "default");
      }),
  );
  await t.step(
    "provider set by any means wins, even from a less specific source",
    () =>
      withLayout(async (l) => {
        await writeFile(l.globalFile, `provider = "chat_completions"`);
        const s = resolveIn(l, { flags: { "base-url": "http://h:1/v1" } });
        assert.equal(s.provider, "chat_completions");
        assert.equal(s.sources.provider?.kind, "global");
        const e = resolveIn(l, { env: { AGENT_PROVIDER: "messages" } });
        assert.equal(e.provider, "messages");
        assert.equal(e.base_url, undefined);
      }),
  );
  await t.step("no base_url means chat_completions", () =>
    withLayout((l) => {
      const s = resolveIn(l);
      assert.equal(s.provider, "chat_completions");
      assert.equal(s.sources.provider?.detail, "no base_url");
    }));
});

Deno.test("model defaults: sentinel on a custom server, built-in id per wire otherwise", () =>
  withLayout((l) => {
    assert.equal(resolveIn(l).model, "gpt-4.1");
    assert.equal(resolveIn(l, { flags: { provider: "messages" } }).model, "claude-sonnet-4-5");
    const custom = resolveIn(l, { env: { AGENT_BASE_URL: "http://127.0.0.1:8000/v1" } });
    assert.equal(custom.model, "default");
    assert.equal(custom.sources.model?.kind, "default");
    // Pointing base_url at the public endpoint itself keeps the built-in id.
    const pub = resolveIn(l, {
      env: { AGENT_BASE_URL: "https://api.openai.com/v1/", AGENT_PROVIDER: "chat_completions" },
    });
    assert.equal(pub.model, "gpt-4.1");
  }));

Deno.test("memory_dir: ~ expands with HOME, relative paths resolve against cwd or the file", () =>
  withLayout(async (l) => {
    const env = { HOME: "/users/me" };
    assert.equal(
      resolveIn(l, { env: { ...env, AGENT_MEMORY_DIR: "~/mem" } }).memory_dir,
      "/users/me/mem",
    );
    assert.equal(resolveIn(l, { flags: { "memory-dir": "rel" } }).memory_dir, join(l.cwd, "rel"));
    await writeFile(l.globalFile, `memory_dir = "mem2"`);
    assert.equal(resolveIn(l).memory_dir, join(l.home, "mem2"));
  }));

Deno.test("project discovery", async (t) => {
  await t.step("nearest ancestor with .agent/settings.toml wins", () =>
    withLayout(async (l) => {
      await writeFile(l.projectFile, `model = "outer"`);
      await writeFile(join(l.project, "src", ".agent", "settings.toml"), `model = "inner"`);
      assert.equal(resolveIn(l).model, "inner");
      assert.equal(resolveIn(l).files?.project, join(l.project, "src", ".agent", "settings.toml"));
    }));
  await t.step(
    "an .agent directory without settings.toml is skipped",
    () =>
      withLayout(async (l) => {
        await writeFile(l.projectFile, `model = "outer"`);
        await Deno.mkdir(join(l.cwd, ".agent", "memory"), { recursive: true });
        assert.equal(resolveIn(l).model, "outer");
      }),
  );
  await t.step("the walk stops at the git root", () =>
    withLayout(async (l) => {
      await writeFile(join(l.root, "work", ".agent", "settings.toml"), `model = "above-git"`);
      assert.equal(findProjectSettingsFile(l.cwd, l.home), undefined);
      assert.equal(resolveIn(l).model, "gpt-4.1");
    }));
  await t.step("the agent home is never a project", () =>
    withLayout(async (l) => {
      const homeParent = join(l.root, "home");
      await writeFile(l.globalFile, `model = "global"`);
      const sub = join(homeParent, "code");
      await Deno.mkdir(sub, { recursive: true });
      assert.equal(findProjectSettingsFile(sub, l.home), undefined);
      const s = resolveSettings({ flags: {}, env: envFrom({}), cwd: sub, home: l.home });
      assert.equal(s.sources.model?.kind, "global");
    }));
});

Deno.test("agentHome: AGENT_HOME, else ~/.agent, else a clear error", () => {
  assert.equal(agentHome(envFrom({ AGENT_HOME: "/srv/agent", HOME: "/u" })), "/srv/agent");
  assert.equal(agentHome(envFrom({ HOME: "/u" })), "/u/.agent");
  throwsSettings(() => agentHome(envFrom({})), (e) => assert.match(e.message, /AGENT_HOME/));
});

Deno.test("malformed TOML names the file, line and column", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `model = "ok"\ntemperature = = 2\n`);
    throwsSettings(() => resolveIn(l), (e) => {
      assert.equal(e.file, l.globalFile);
      assert.equal(e.line, 2);
      assert.equal(e.column, 15);
      assert.match(e.message, new RegExp(`${l.globalFile} is not valid TOML at line 2, column 15`));
    });
    await writeFile(l.globalFile, "");
    await writeFile(l.projectFile, `[thinking\ntype = "x"`);
    throwsSettings(() => resolveIn(l), (e) => {
      assert.equal(e.file, l.projectFile);
      assert.equal(e.line, 1);
    });
  }));

Deno.test("unknown keys warn (with a suggestion) and do not fail", () =>
  withLayout(async (l) => {
    await writeFile(
      l.globalFile,
      `model = "m"\ntemprature = 0.5\ncompaction_threshold = 0.5\nwhatever = 1\n[thinking]\nkind = "x"`,
    );
    await writeFile(l.projectFile, `preset = "hosted-messages"`);
    const s = resolveIn(l);
    assert.equal(s.model, "m");
    const w = s.warnings.join("\n");
    assert.match(
      w,
      new RegExp(`${l.globalFile}:2: unknown setting temprature .*did you mean temperature\\?`),
    );
    assert.match(w, /unknown setting compaction_threshold .*did you mean compaction\.threshold\?/);
    assert.match(w, /unknown setting whatever \(ignored\)/);
    assert.match(w, new RegExp(`${l.globalFile}:6: unknown setting thinking\\.kind`));
    assert.match(w, /unknown setting preset .*did you mean provider_preset\?/);
  }));

Deno.test("enabled thinking with max_tokens of 1024 or less warns that thinking is off", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `provider = "messages"\n[thinking]\ntype = "enabled"`);
    const warned = (max: string) =>
      resolveIn(l, { env: { AGENT_MAX_TOKENS: max } }).warnings.filter((w) =>
        w.includes("thinking")
      );
    assert.deepEqual(warned("1024"), [
      'thinking.type = "enabled" needs max_tokens above 1024 (the Messages API\'s smallest ' +
      "thinking budget, which must stay below max_tokens); max_tokens is 1024, so requests go " +
      "without thinking",
    ]);
    assert.equal(warned("3").length, 1);
    assert.deepEqual(warned("1025"), [], "1024 fits below 1025");
    assert.deepEqual(resolveIn(l).warnings, [], "unset max_tokens: the 32000 default");
    assert.deepEqual(
      resolveIn(l, { env: { AGENT_MAX_TOKENS: "3", AGENT_PROVIDER: "chat_completions" } })
        .warnings,
      [],
      "thinking.type is a Messages-wire setting",
    );
  }));

Deno.test("bad values from a file name key, file, line and expected type", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `model = "m"\n\ntemperature = "hot"`);
    throwsSettings(() => resolveIn(l), (e) => {
      assert.equal(e.key, "temperature");
      assert.equal(e.file, l.globalFile);
      assert.equal(e.line, 3);
      assert.deepEqual(e.source, { kind: "global", detail: l.globalFile });
      assert.match(e.message, /expected a number >= 0, got "hot"/);
    });
    await writeFile(l.globalFile, "");
    await writeFile(l.projectFile, `[thinking]\ntype = "sometimes"`);
    throwsSettings(() => resolveIn(l), (e) => {
      assert.equal(e.key, "thinking.type");
      assert.equal(e.line, 2);
      assert.match(e.message, /one of enabled, disabled, adaptive/);
    });
    await writeFile(l.projectFile, `thinking = "enabled"`);
    throwsSettings(() => resolveIn(l), (e) => {
      assert.equal(e.key, "thinking");
      assert.match(e.message, /expected a table \(\[thinking\] with type\)/);
    });
  }));

Deno.test("bad values from env and flags name the variable or flag", () =>
  withLayout((l) => {
    throwsSettings(() => resolveIn(l, { env: { AGENT_TOKEN_BUDGET: "lots" } }), (e) => {
      assert.equal(e.key, "token_budget");
      assert.deepEqual(e.source, { kind: "env", detail: "AGENT_TOKEN_BUDGET" });
      assert.match(
        e.message,
        /expected an integer >= 1, got "lots" \(from env AGENT_TOKEN_BUDGET\)/,
      );
    });
    throwsSettings(() => resolveIn(l, { flags: { temperature: "hot" } }), (e) => {
      assert.equal(e.key, "temperature");
      assert.deepEqual(e.source, { kind: "flag", detail: "--temperature" });
      assert.match(e.message, /\(from flag --temperature\)/);
    });
    throwsSettings(() => resolveIn(l, { env: { AGENT_STRICT_TOOLS: "maybe" } }), (e) => {
      assert.equal(e.key, "strict_tools");
      assert.match(e.message, /expected a boolean/);
    });
    throwsSettings(() => resolveIn(l, { flags: { model: true } }), (e) => {
      assert.match(e.message, /--model needs a value/);
    });
    throwsSettings(
      () => resolveIn(l, { flags: { "strict-tools": true, "no-strict-tools": true } }),
      (e) => assert.match(e.message, /contradict/),
    );
    throwsSettings(() => resolveIn(l, { env: { AGENT_PROVIDER: "openai" } }), (e) => {
      assert.match(e.message, /one of chat_completions, messages/);
    });
    throwsSettings(() => resolveIn(l, { env: { AGENT_BASE_URL: "localhost:8000" } }), (e) => {
      assert.match(e.message, /http:\/\/ or https:\/\/ URL/);
    });
  }));

Deno.test("range checks", () =>
  withLayout(async (l) => {
    const bad: Array<[string, string]> = [
      ["AGENT_TEMPERATURE", "-0.1"],
      ["AGENT_TOP_P", "0"],
      ["AGENT_TOP_P", "1.5"],
      ["AGENT_TOKEN_BUDGET", "0"],
      ["AGENT_CONTEXT_WINDOW", "-4"],
      ["AGENT_MAX_TOKENS", "1.5"],
      ["AGENT_COMPACT_THRESHOLD", "1"],
      ["AGENT_COMPACT_THRESHOLD", "0"],
      ["AGENT_REQUEST_PRIORITY", "1.5"],
      ["AGENT_TOP_K", "-2"],
    ];
    for (const [name, value] of bad) {
      throwsSettings(() => resolveIn(l, { env: { [name]: value } }), (e) => {
        assert.match(e.message, new RegExp(`\\(from env ${name}\\)`), `${name}=${value}`);
      });
    }
    const ok = resolveIn(l, {
      env: { AGENT_TOP_P: "1", AGENT_TEMPERATURE: "0", AGENT_COMPACT_THRESHOLD: "0.99" },
    });
    assert.equal(ok.top_p, 1);
    assert.equal(ok.temperature, 0);
    await writeFile(l.globalFile, `token_budget = 0`);
    throwsSettings(() => resolveIn(l), (e) => assert.equal(e.line, 1));
    await writeFile(l.globalFile, `context_window = 99999999999999999999`);
    throwsSettings(() => resolveIn(l), (e) => assert.match(e.message, /99999999999999999999/));
    await writeFile(l.globalFile, `max_tokens = 12.5`);
    throwsSettings(() => resolveIn(l), (e) => assert.match(e.message, /an integer >= 1, got 12.5/));
  }));

Deno.test("secret values are not echoed in errors", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `[provider_keys]\nx = 12345678`);
    throwsSettings(() => resolveIn(l), (e) => {
      assert.equal(e.key, "provider_keys.x");
      assert.doesNotMatch(e.message, /12345678/);
    });
  }));

Deno.test("project discovery: a path Deno refuses to read stops with its name, never reads as absent", () =>
  withLayout(async (l) => {
    await writeFile(l.projectFile, `model = "project"`);
    const find = (cwd: string) =>
      `console.log(await outcome(() => findProjectSettingsFile(${JSON.stringify(cwd)}, ${
        JSON.stringify(l.home)
      })));`;
    const probe = (deny: string, cwd = l.cwd) =>
      runRefused(
        `const { findProjectSettingsFile } = await import(repo + "core/settings/project.ts");
${find(cwd)}`,
        [`--deny-read=${deny}`],
      );
    const cases: Array<[string, string]> = [
      // A refused candidate: the project file above it must not win in its place.
      [join(l.cwd, ".agent"), join(l.cwd, ".agent", "settings.toml")],
      // A refused .git: the walk must not go on past what may be the git root.
      [join(l.project, "src", ".git"), join(l.project, "src", ".git")],
      // A refused agent home: it cannot be told apart from the project's .agent any more.
      [l.home, l.home],
    ];
    for (const [deny, named] of cases) {
      const [line] = await probe(deny);
      assert.ok(line?.startsWith(`error: cannot look for settings at ${named}: `), line);
    }
    // Unrefused, the same walk finds the project file.
    assert.equal(findProjectSettingsFile(l.cwd, l.home), l.projectFile);
  }));

Deno.test("a project settings file that is a FIFO or a directory is skipped with one warning", () =>
  withLayout(async (l) => {
    await writeFile(join(l.root, "work", ".agent", "settings.toml"), 'model = "parent-model"\n');
    await Deno.mkdir(join(l.project, ".agent"), { recursive: true });
    {
      // A writer waits on the FIFO: code that opened it would read this instead of hanging.
      // It is ended before the FIFO is removed, or its `>` could create the path anew.
      await using _writer = await fifoWithWriter(l.projectFile, 'model = "planted"');
      const s = resolveIn(l);
      assert.equal(s.model, "gpt-4.1", "neither the FIFO nor a parent project's file is used");
      assert.deepEqual(s.warnings, [
        `settings file ${l.projectFile} is a FIFO, not a regular file; it is ignored`,
      ]);
      assert.equal(s.files?.project, undefined);
    }
    await Deno.remove(l.projectFile);
    await Deno.mkdir(l.projectFile);
    assert.deepEqual(resolveIn(l).warnings, [
      `settings file ${l.projectFile} is a directory, not a regular file; it is ignored`,
    ]);
  }));
