// launcherPackage reads the package a launcher-style server runs from its command line, and
// leaves every other command (and what is not a registry name) alone.

import assert from "node:assert/strict";
import { installSpec, launcherPackage } from "./launcher_spec.ts";

Deno.test("npx and bunx: flags, a scoped name with or without a version, -p with a command", () => {
  assert.deepEqual(launcherPackage("npx", ["-y", "@modelcontextprotocol/server-filesystem", "."]), {
    ecosystem: "npm",
    launcher: "npx",
    name: "@modelcontextprotocol/server-filesystem",
    requested: "",
    args: ["."],
  });
  assert.deepEqual(launcherPackage("/usr/bin/npx", ["--yes", "pkg@1.2.3", "--port", "1"]), {
    ecosystem: "npm",
    launcher: "npx",
    name: "pkg",
    requested: "1.2.3",
    args: ["--port", "1"],
  });
  assert.deepEqual(launcherPackage("npx", ["-p", "@s/tools@^2", "tool-a", "x"]), {
    ecosystem: "npm",
    launcher: "npx",
    name: "@s/tools",
    requested: "^2",
    bin: "tool-a",
    args: ["x"],
  });
  assert.equal(launcherPackage("bunx", ["srv"])?.launcher, "bunx");
});

Deno.test("uvx and pipx run: ==/@ versions, --from and --spec name the package apart", () => {
  assert.deepEqual(launcherPackage("uvx", ["mcp-server-fetch"]), {
    ecosystem: "pypi",
    launcher: "uvx",
    name: "mcp-server-fetch",
    requested: "",
    args: [],
  });
  assert.deepEqual(
    launcherPackage("uvx", ["--python", "3.12", "mcp-server-git==0.6.2", "--repo", "."]),
    {
      ecosystem: "pypi",
      launcher: "uvx",
      name: "mcp-server-git",
      requested: "0.6.2",
      args: ["--repo", "."],
    },
  );
  assert.deepEqual(launcherPackage("uvx", ["--from", "pkg@1.0", "pkg-cmd"]), {
    ecosystem: "pypi",
    launcher: "uvx",
    name: "pkg",
    requested: "1.0",
    bin: "pkg-cmd",
    args: [],
  });
  assert.deepEqual(launcherPackage("pipx", ["run", "--spec", "tool==2", "tool-cli", "-v"]), {
    ecosystem: "pypi",
    launcher: "pipx run",
    name: "tool",
    requested: "2",
    bin: "tool-cli",
    args: ["-v"],
  });
});

Deno.test("other commands, a bare launcher, paths and URLs are not launcher packages", () => {
  assert.equal(launcherPackage("node", ["server.js"]), null);
  assert.equal(launcherPackage("npx", ["-y"]), null);
  assert.equal(launcherPackage("npx", ["./local-dir"]), null);
  assert.equal(launcherPackage("npx", ["https://example.com/pkg.tgz"]), null);
  assert.equal(launcherPackage("pipx", ["install", "x"]), null);
  assert.equal(launcherPackage("uvx", ["git+https://example.com/x"]), null);
});

Deno.test("installSpec writes each ecosystem's pin", () => {
  assert.equal(installSpec({ ecosystem: "npm", name: "@s/p" }, "1.0.0"), "@s/p@1.0.0");
  assert.equal(installSpec({ ecosystem: "pypi", name: "p" }, "1.0"), "p==1.0");
  assert.equal(installSpec({ ecosystem: "npm", name: "p" }, ""), "p");
});
