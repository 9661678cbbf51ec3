// sandboxHints: the read_paths line names the folder a sandbox must show (a package's
// node_modules root, a virtual environment, or the file's folder) and keeps what is there; the
// network hint needs the network to have been closed and stderr to show a refused lookup.

import assert from "node:assert/strict";
import { sandboxHints } from "./start_hints.ts";
import type { StdioServer } from "../settings/mcp_servers.ts";

function server(over: Partial<StdioServer> = {}): StdioServer {
  return {
    name: "s",
    transport: "stdio",
    command: "node",
    args: [],
    env: {},
    read_paths: [],
    enabled: true,
    startup_timeout_s: 10,
    tool_timeout_s: 60,
    scope: "global",
    file: "/home/u/.agent/settings.toml",
    ...over,
  };
}

async function layout() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "hints-" }));
  await Deno.mkdir(`${root}/pkg/node_modules/srv/dist`, { recursive: true });
  await Deno.writeTextFile(`${root}/pkg/node_modules/srv/dist/index.js`, "");
  await Deno.mkdir(`${root}/venv/bin`, { recursive: true });
  await Deno.writeTextFile(`${root}/venv/pyvenv.cfg`, "home = /usr/bin\n");
  await Deno.writeTextFile(`${root}/venv/bin/srv`, "");
  await Deno.writeTextFile(`${root}/plain.mjs`, "");
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

const spec = (command: string, args: string[] = [], cwd = "/") => ({
  command,
  args,
  env: { PATH: "/usr/bin:/bin" },
  cwd,
});

Deno.test("read_paths: a package's folder, a virtual environment, a plain file's folder", async () => {
  await using l = await layout();
  const hint = (command: string, args: string[], read_paths: string[] = []) =>
    sandboxHints({
      server: server({ read_paths }),
      spec: spec(command, args),
      workdir: "/work",
      network: false,
      stderr: "",
    });
  assert.deepEqual(hint("node", [`${l.root}/pkg/node_modules/srv/dist/index.js`]), [
    `the sandbox does not show ${l.root}/pkg: add read_paths = ["${l.root}/pkg"] to ` +
    "[mcp_servers.s] in /home/u/.agent/settings.toml",
  ]);
  assert.match(
    hint(`${l.root}/venv/bin/srv`, [])[0]!,
    new RegExp(`read_paths = \\["${l.root}/venv"\\]`),
  );
  assert.match(
    hint("node", [`${l.root}/plain.mjs`], ["/opt/x"])[0]!,
    new RegExp(`read_paths = \\["/opt/x", "${l.root}"\\]`),
  );
  // Visible already (a system directory, the workdir, read_paths): nothing to say.
  assert.deepEqual(hint("node", ["/usr/lib/x.js"]), []);
  assert.deepEqual(hint("node", [`${l.root}/plain.mjs`], [l.root]), []);
});

Deno.test("network = true only when the network was closed and stderr shows a refused lookup", () => {
  const base = { spec: spec("node"), workdir: "/work" };
  const said = "Error: getaddrinfo EAI_AGAIN registry.npmjs.org";
  assert.match(
    sandboxHints({ ...base, server: server(), network: false, stderr: said })[0]!,
    /add network = true to \[mcp_servers\.s\] in \/home\/u\/\.agent\/settings\.toml/,
  );
  assert.deepEqual(sandboxHints({ ...base, server: server(), network: true, stderr: said }), []);
  assert.deepEqual(sandboxHints({ ...base, server: server(), network: false, stderr: "boom" }), []);
  assert.match(
    sandboxHints({
      ...base,
      server: server({ scope: "project" }),
      network: false,
      stderr: said,
    })[0]!,
    /honoured only for a server defined in the global settings file/,
  );
});

Deno.test("a launcher package's script: its bound folder is not named, its interpreter's prefix is", async () => {
  // As uv makes it: <venv>/bin/python links to an interpreter under <prefix>/bin beside
  // <prefix>/lib, and the package's script starts `#!<venv>/bin/python`.
  await using l = await layout();
  const prefix = `${l.root}/pyenv/versions/3.11.7`;
  await Deno.mkdir(`${prefix}/bin`, { recursive: true });
  await Deno.mkdir(`${prefix}/lib/python3.11`, { recursive: true });
  await Deno.writeTextFile(`${prefix}/bin/python3.11`, "");
  await Deno.symlink(`${prefix}/bin/python3.11`, `${l.root}/venv/bin/python`);
  await Deno.writeTextFile(`${l.root}/venv/bin/srv`, `#!${l.root}/venv/bin/python\nimport srv\n`);
  const hints = sandboxHints({
    server: server({ command: "uvx", args: ["srv"] }),
    spec: { ...spec(`${l.root}/venv/bin/srv`), installDirs: [`${l.root}/venv`] },
    workdir: "/work",
    network: false,
    stderr: `bwrap: execvp ${l.root}/venv/bin/srv: No such file or directory`,
  });
  assert.deepEqual(hints, [
    `the sandbox does not show ${prefix}: add read_paths = ["${prefix}"] to ` +
    "[mcp_servers.s] in /home/u/.agent/settings.toml",
  ]);
  // Through `#!/usr/bin/env NAME`, found on the server's PATH.
  await Deno.writeTextFile(`${l.root}/venv/bin/srv`, "#!/usr/bin/env python3.11\n");
  const viaEnv = sandboxHints({
    server: server(),
    spec: {
      ...spec(`${l.root}/venv/bin/srv`),
      env: { PATH: `${prefix}/bin:/usr/bin` },
      installDirs: [`${l.root}/venv`],
    },
    workdir: "/work",
    network: false,
    stderr: "",
  });
  assert.match(viaEnv[0]!, new RegExp(`read_paths = \\["${prefix}"\\]`));
});
