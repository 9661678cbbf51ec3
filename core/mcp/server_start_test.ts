// connectServer's refusals before any connection: a project file's server never gets the
// stored secrets a machine grant needs, so asking for one is refused with one line rather than
// connecting without the credentials its table asks for.

import assert from "node:assert/strict";
import { connectServer, StartFailure } from "./server_start.ts";
import type { HttpServer } from "../settings/mcp_server_config.ts";
import { resolveSettings } from "../settings/resolve.ts";
import { envFrom, systemClock } from "../ports.ts";
import { makeLayout } from "../../tests/fakes/settings_layout.ts";

for (const grant of ["client_credentials", "cross_app_access"] as const) {
  Deno.test(`a project file's server with oauth_grant = ${grant} is refused, never contacted`, async () => {
    let requests = 0;
    await using listener = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
      requests++;
      return new Response("no", { status: 401 });
    });
    const layout = await makeLayout();
    try {
      const env = envFrom({ HOME: layout.root });
      const settings = resolveSettings({ flags: {}, env, cwd: layout.cwd, home: layout.home });
      const server: HttpServer = {
        name: "ci",
        enabled: true,
        startup_timeout_s: 5,
        tool_timeout_s: 5,
        scope: "project",
        file: layout.projectFile,
        transport: "http",
        url: `http://127.0.0.1:${listener.addr.port}/mcp`,
        http_headers: {},
        key_header: "Authorization",
        oauth_grant: grant,
        oauth_client_id: "ci-client",
      };
      const deps = {
        env,
        fetch: globalThis.fetch,
        clock: systemClock,
        workdir: layout.cwd,
        clientVersion: "test",
        home: layout.home,
      };
      const track = { spawned() {}, stopping() {} };
      await assert.rejects(
        connectServer(server, settings, deps, track),
        (err: Error) =>
          err instanceof StartFailure &&
          err.message.includes(
            `${grant} is only honoured for a server in the global settings file`,
          ),
      );
      assert.equal(requests, 0, "the server was never contacted");
    } finally {
      await layout.cleanup();
    }
  });
}
