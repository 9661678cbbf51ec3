import assert from "node:assert/strict";
import { envFrom } from "../ports.ts";
import { MessengerConfigError, parseVerbs, readMessengerSetup } from "./config.ts";

const FULL = {
  MX_HOMESERVER: "http://127.0.0.1:8008/",
  MX_TOKEN: "syt_x",
  MX_ROOM: "!r:localhost",
  MX_ALLOWLIST: "@a:localhost, @b:localhost,",
};

Deno.test("any one MX_* missing or blank makes the messenger dormant, naming it", () => {
  for (const name of Object.keys(FULL)) {
    const setup = readMessengerSetup(envFrom({ ...FULL, [name]: "  " }));
    assert.equal(setup.state, "dormant");
    if (setup.state === "dormant") assert.deepEqual(setup.missing, [name]);
  }
  const none = readMessengerSetup(envFrom({}));
  assert.deepEqual(none, {
    state: "dormant",
    missing: ["MX_HOMESERVER", "MX_TOKEN", "MX_ROOM", "MX_ALLOWLIST"],
    allowlist_size: 0,
  });
});

Deno.test("a full setup trims the homeserver and parses the allowlist", () => {
  const setup = readMessengerSetup(envFrom(FULL));
  assert.equal(setup.state, "configured");
  if (setup.state !== "configured") return;
  assert.equal(setup.config.homeserver, "http://127.0.0.1:8008");
  assert.deepEqual([...setup.config.allowlist], ["@a:localhost", "@b:localhost"]);
  assert.equal(setup.config.verbs.size, 13);
});

Deno.test("bad MX_ALLOWLIST or MX_HOMESERVER values stop start-up with the variable named", () => {
  assert.throws(
    () => readMessengerSetup(envFrom({ ...FULL, MX_ALLOWLIST: "alice" })),
    (e) => e instanceof MessengerConfigError && e.variable === "MX_ALLOWLIST",
  );
  assert.throws(
    () => readMessengerSetup(envFrom({ ...FULL, MX_HOMESERVER: "ftp://x" })),
    (e) => e instanceof MessengerConfigError && e.variable === "MX_HOMESERVER",
  );
});

Deno.test("AGENT_MATRIX_VERBS: enabled, legacy, a comma list, and a typo refused", () => {
  assert.equal(parseVerbs(undefined).verbs.size, 13);
  assert.equal(parseVerbs("ENABLED").setting, "enabled");
  assert.deepEqual([...parseVerbs("legacy").verbs].sort(), ["answer", "ask", "run", "status"]);
  assert.deepEqual([...parseVerbs(" status , Help,").verbs], ["status", "help"]);
  assert.throws(() => parseVerbs("status,aprove"), /unknown verb "aprove"/);
});
