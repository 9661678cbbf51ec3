// OAuth 2.1 for a Streamable HTTP MCP server through the real `agent` (release flags) against
// tests/mcp/oauth_server.ts: a run before signing in says to run `agent mcp login`; the login
// (discovery, dynamic registration, PKCE, a loopback redirect followed by a "browser" that is
// curl) keeps the tokens 0600 under the agent home; runs then use them, and refresh a stale
// access token without asking again; `agent mcp logout` forgets them.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { startOAuthMcpServer } from "../mcp/oauth_server.ts";
import { commandOnPath, peerTest } from "../peers.ts";

const curlProbe = () => commandOnPath("curl") ? null : "curl is not on PATH";

peerTest(
  "agent mcp login signs in with OAuth; runs use and refresh the tokens; logout forgets them",
  curlProbe,
  async () => {
    await using peer = startOAuthMcpServer();
    await using t = await headlessSetup();
    const browser = `${t.home}/browser.sh`;
    await Deno.writeTextFile(browser, '#!/bin/sh\nexec curl -s -L -o /dev/null "$1"\n');
    await Deno.chmod(browser, 0o755);
    t.env.BROWSER = browser;
    await Deno.mkdir(`${t.home}/.agent`);
    await Deno.writeTextFile(
      `${t.home}/.agent/settings.toml`,
      `[mcp_servers.hosted]\nurl = "${peer.url}"\n`,
    );
    const run = async () => {
      t.fake.enqueue(reply().tool("mcp__hosted__whoami", {}));
      t.fake.enqueue(reply().text("done"));
      const r = await runAgent(
        ["-p", "--workdir", t.work, "--output-format", "json", "--", "who"],
        t.env,
      );
      assert.equal(r.code, 0, r.stderr);
      return { ...r, result: JSON.parse(r.stdout) as HeadlessResult };
    };
    const toolContent = () => {
      const body = t.fake.requests.at(-1)!.body as {
        messages: { role: string; content?: unknown }[];
      };
      return body.messages.filter((m) => m.role === "tool").map((m) => String(m.content)).at(-1);
    };

    // Not signed in: the run says how to, and goes on without the server.
    t.fake.enqueue(reply().text("alone"));
    const before = await runAgent([
      "-p",
      "--workdir",
      t.work,
      "--output-format",
      "json",
      "--",
      "hi",
    ], t.env);
    assert.equal(before.code, 0, before.stderr);
    const server = (JSON.parse(before.stdout) as HeadlessResult).mcp_servers?.[0];
    assert.equal(server?.state, "failed");
    assert.match(server?.error ?? "", /needs you to sign in: run `agent mcp login hosted`/);

    const login = await runAgent(["mcp", "login", "hosted"], t.env);
    assert.equal(login.code, 0, login.stderr);
    assert.match(
      login.stdout,
      /sign in to hosted in your browser: http:\/\/127\.0\.0\.1:\d+\/authorize\?/,
    );
    assert.match(login.stdout, /signed in to hosted: ready, 1 tools/);
    const tokenFile = `${t.home}/.agent/mcp/oauth/hosted.json`;
    assert.equal((await Deno.stat(tokenFile)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${t.home}/.agent/mcp/oauth`)).mode! & 0o777, 0o700);
    assert.ok(!login.stdout.includes(peer.issued[0]!), "the token is never printed");
    const list = await runAgent(["mcp", "list"], t.env);
    assert.match(list.stdout, /oauth: signed in/);

    await run();
    assert.equal(toolContent(), `called with ${peer.issued.at(-1)}`);

    // The access token goes stale: the next run refreshes it, nobody signs in again.
    peer.revokeAccess();
    const refreshed = await run();
    assert.equal(refreshed.result.mcp_servers?.[0]?.state, "ready", refreshed.stderr);
    assert.equal(peer.refreshes, 1);
    assert.equal(toolContent(), `called with ${peer.issued.at(-1)}`);
    const kept = JSON.parse(await Deno.readTextFile(tokenFile));
    assert.equal(kept.tokens.access_token, peer.issued.at(-1));

    // A project file's server of the same name (another URL) gets no stored sign-in and can
    // never change it, even once approved.
    const signedIn = await Deno.readTextFile(tokenFile);
    await Deno.mkdir(`${t.work}/.agent`);
    await Deno.writeTextFile(
      `${t.work}/.agent/settings.toml`,
      `[mcp_servers.hosted]\nurl = "${peer.url.replace("/mcp", "/other/mcp")}"\n`,
    );
    const approve = await runAgent(["mcp", "approve", "hosted"], t.env, t.work);
    assert.equal(approve.code, 0, approve.stderr);
    t.fake.enqueue(reply().text("project"));
    const project = await runAgent(
      ["-p", "--workdir", t.work, "--output-format", "json", "--", "hi"],
      t.env,
    );
    assert.equal(project.code, 0, project.stderr);
    assert.equal((JSON.parse(project.stdout) as HeadlessResult).mcp_servers?.[0]?.state, "failed");
    assert.equal(await Deno.readTextFile(tokenFile), signedIn);
    const projectLogin = await runAgent(["mcp", "login", "hosted"], t.env, t.work);
    assert.equal(projectLogin.code, 1);
    assert.match(projectLogin.stderr, /sign-ins are for servers in the global settings/);
    await Deno.remove(`${t.work}/.agent`, { recursive: true });

    const logout = await runAgent(["mcp", "logout", "hosted"], t.env);
    assert.equal(logout.code, 0, logout.stderr);
    await assert.rejects(Deno.stat(tokenFile), Deno.errors.NotFound);
  },
);
