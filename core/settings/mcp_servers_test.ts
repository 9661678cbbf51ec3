import assert from "node:assert/strict";
import { envFrom } from "../ports.ts";
import { SettingsError } from "./errors.ts";
import { resolveSettings } from "./resolve.ts";
import { type Layout, makeLayout, writeFile } from "../../tests/fakes/settings_layout.ts";
import { approvalEntry, describeMcpServer, mcpFingerprint } from "./mcp_servers.ts";
import { addMcpServer, approveMcpServer, removeMcpServer, setMcpKey } from "./mcp_settings_file.ts";

async function withFiles(
  globalToml: string,
  projectToml: string | undefined,
  fn: (l: Layout) => Promise<void> | void,
): Promise<void> {
  const l = await makeLayout();
  try {
    await writeFile(l.globalFile, globalToml);
    if (projectToml !== undefined) await writeFile(l.projectFile, projectToml);
    await fn(l);
  } finally {
    await l.cleanup();
  }
}

const resolveIn = (l: Layout) =>
  resolveSettings({ flags: {}, env: envFrom({}), cwd: l.cwd, home: l.home });

Deno.test("[mcp_servers.<name>] tables parse into stdio and http servers with defaults", async () => {
  await withFiles(
    `[mcp_servers.fs]
command = "npx"
args = ["-y", "server-fs"]
env = { ROOT = "/tmp" }
disabled_tools = ["delete"]
[mcp_servers.web]
url = "https://mcp.example.com/mcp"
bearer_key = "web"
tool_timeout_s = 5
enabled = false
`,
    undefined,
    (l) => {
      const [fs, web] = resolveIn(l).mcp_servers;
      assert.deepEqual(fs, {
        name: "fs",
        enabled: true,
        startup_timeout_s: 10,
        tool_timeout_s: 60,
        disabled_tools: ["delete"],
        scope: "global",
        file: l.globalFile,
        transport: "stdio",
        command: "npx",
        args: ["-y", "server-fs"],
        env: { ROOT: "/tmp" },
        read_paths: [],
      });
      assert.equal(web?.transport, "http");
      assert.equal(web?.enabled, false);
      assert.equal(web?.tool_timeout_s, 5);
      assert.ok(web?.transport === "http" && web.key_header === "Authorization");
    },
  );
});

Deno.test("bad MCP tables are errors naming the key and the line", async () => {
  const cases: Array<[string, RegExp]> = [
    [`[mcp_servers.x]\nargs = ["a"]\n`, /mcp_servers\.x.*exactly one of command.*url/],
    [`[mcp_servers.x]\ncommand = "a"\nurl = "http://h"\n`, /exactly one of command/],
    [
      `[mcp_servers.x]\ncommand = "a"\nargs = "b"\n`,
      /mcp_servers\.x\.args.*list of strings.*line 3/,
    ],
    [`[mcp_servers.x]\nurl = "ftp://h"\n`, /mcp_servers\.x\.url/],
    [`[mcp_servers.x]\ncommand = "a"\nstartup_timeout_s = 0\n`, /startup_timeout_s/],
    [`[mcp_servers."a b"]\ncommand = "a"\n`, /server name/],
    [`[mcp_servers.x]\nurl = "http://h"\nenv = { A = "1" }\n`, /env.*command servers only/],
  ];
  for (const [toml, expected] of cases) {
    await withFiles(toml, undefined, (l) => {
      assert.throws(() => resolveIn(l), (e: unknown) => {
        assert.ok(e instanceof SettingsError, String(e));
        assert.match(e.message, expected);
        return true;
      });
    });
  }
});

Deno.test("a project table replaces a global server of the same name and is project-scoped", async () => {
  await withFiles(
    `[mcp_servers.a]\ncommand = "global-a"\n[mcp_servers.b]\ncommand = "global-b"\n`,
    `[mcp_servers.a]\ncommand = "project-a"\n[mcp_keys]\nx = "stolen"\n[mcp_approvals]\n"/p" = ["a@1"]\n`,
    (l) => {
      const s = resolveIn(l);
      assert.deepEqual(s.mcp_servers.map((x) => [x.name, x.scope]), [
        ["a", "project"],
        ["b", "global"],
      ]);
      // A project file can neither store keys nor approve its own servers.
      assert.deepEqual(s.mcp_keys, {});
      assert.deepEqual(s.mcp_approvals, {});
      assert.ok(s.warnings.some((w) => /mcp_keys is global-only/.test(w)));
      assert.ok(s.warnings.some((w) => /mcp_approvals is global-only/.test(w)));
    },
  );
});

Deno.test("an approval is pinned to the server's table: changing its command needs a new one", async () => {
  await withFiles("", `[mcp_servers.p]\ncommand = "one"\n`, async (l) => {
    const before = resolveIn(l).mcp_servers[0]!;
    await approveMcpServer(l.home, before.file, "p", await approvalEntry(before));
    const approved = resolveIn(l);
    assert.deepEqual(approved.mcp_approvals[before.file], [await approvalEntry(before)]);
    await writeFile(l.projectFile, `[mcp_servers.p]\ncommand = "two"\n`);
    const changed = resolveIn(l).mcp_servers[0]!;
    assert.notEqual(await approvalEntry(changed), await approvalEntry(before));
    // Approving again replaces the old entry instead of piling up.
    await approveMcpServer(l.home, changed.file, "p", await approvalEntry(changed));
    assert.deepEqual(resolveIn(l).mcp_approvals[before.file], [await approvalEntry(changed)]);
  });
});

Deno.test("add, remove and set-key keep every other setting of the global file", async () => {
  await withFiles(
    `model = "m"\n[provider_keys]\nlab = "sk-lab-0123456789"\n`,
    undefined,
    async (l) => {
      await addMcpServer(l.home, "fs", { command: "node", args: ["s.js"] });
      await assert.rejects(addMcpServer(l.home, "fs", { command: "x" }), /already exists/);
      await setMcpKey(l.home, "web", "tok-123456789012");
      await assert.rejects(setMcpKey(l.home, "web", "two words"), /whitespace/);
      let s = resolveIn(l);
      assert.equal(s.model, "m");
      assert.equal(s.provider_keys.lab, "sk-lab-0123456789");
      assert.equal(s.mcp_keys.web, "tok-123456789012");
      assert.deepEqual(s.mcp_servers.map((x) => x.name), ["fs"]);
      assert.equal(await removeMcpServer(l.home, "fs"), true);
      assert.equal(await removeMcpServer(l.home, "fs"), false);
      s = resolveIn(l);
      assert.deepEqual(s.mcp_servers, []);
      assert.equal(s.mcp_keys.web, "tok-123456789012");
    },
  );
});

Deno.test("read_paths and network: parsed, checked, shown and in the approval digest", async () => {
  await withFiles(
    `[mcp_servers.a]\ncommand = "x"\nread_paths = ["/opt/a"]\nnetwork = true\n`,
    undefined,
    async (l) => {
      const [s] = resolveIn(l).mcp_servers;
      assert.ok(s?.transport === "stdio");
      assert.deepEqual(s.read_paths, ["/opt/a"]);
      assert.equal(s.network, true);
      assert.match(describeMcpServer(s), /\(read_paths \/opt\/a\) \(network on\)/);
      const { network: _, ...plain } = { ...s, read_paths: [] };
      assert.notEqual(await mcpFingerprint(s), await mcpFingerprint(plain));
    },
  );
  await withFiles(`[mcp_servers.a]\ncommand = "x"\nread_paths = ["rel"]\n`, undefined, (l) => {
    assert.throws(() => resolveIn(l), /absolute paths/);
  });
  await withFiles(`[mcp_servers.a]\ncommand = "x"\nnetwork = "yes"\n`, undefined, (l) => {
    assert.throws(() => resolveIn(l), /a boolean/);
  });
});

Deno.test("the cross_app_access grant: its three settings parsed, each missing or bad one named", async () => {
  const server = `[mcp_servers.x]\nurl = "https://mcp.example.com/mcp"\n`;
  const grant = `oauth_grant = "cross_app_access"\noauth_client_id = "agent"\n`;
  const idp = `oauth_idp_token_endpoint = "https://idp.example.com/token"\n` +
    `oauth_idp_client_id = "agent-at-idp"\noauth_id_token_file = "/run/user/id_token"\n`;
  await withFiles(server + grant + idp, undefined, (l) => {
    const [x] = resolveIn(l).mcp_servers;
    assert.ok(x?.transport === "http");
    assert.equal(x.oauth_grant, "cross_app_access");
    assert.equal(x.oauth_idp_token_endpoint, "https://idp.example.com/token");
    assert.equal(x.oauth_idp_client_id, "agent-at-idp");
    assert.equal(x.oauth_id_token_file, "/run/user/id_token");
  });
  const cases: Array<[string, RegExp]> = [
    [server + `oauth_grant = "cross_app_access"\n` + idp, /x\.oauth_client_id.*cross_app_access/],
    [server + grant, /x\.oauth_idp_token_endpoint.*URL of the identity provider/],
    [
      server + grant + idp.replace("https://idp.example.com/token", "idp.example.com"),
      /x\.oauth_idp_token_endpoint/,
    ],
    [server + grant + idp.replace(/oauth_idp_client_id.*\n/, ""), /x\.oauth_idp_client_id/],
    [server + grant + idp.replace("/run/user/id_token", "id_token"), /x\.oauth_id_token_file/],
    [server + idp, /x\.oauth_idp_token_endpoint.*applies to oauth_grant = "cross_app_access"/],
    [`[mcp_servers.x]\ncommand = "a"\n` + idp, /oauth_idp_token_endpoint.*url servers only/],
    [server + `oauth_grant = "id_jag"\n`, /x\.oauth_grant.*cross_app_access/],
  ];
  for (const [toml, expected] of cases) {
    await withFiles(toml, undefined, (l) => {
      assert.throws(() => resolveIn(l), (e: unknown) => {
        assert.ok(e instanceof SettingsError, String(e));
        assert.match(e.message, expected);
        return true;
      });
    });
  }
});
