import assert from "node:assert/strict";
import { csrfMetaTag, csrfSecretPath, fixedCsrfToken, loadOrCreateCsrfToken } from "./csrf.ts";

Deno.test("the CSRF token is minted once per install (mode 0600) and reused on every later start", async () => {
  const home = await Deno.makeTempDir();
  try {
    const first = await loadOrCreateCsrfToken(home);
    const token = first.token();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(first.token(), token, "reading never re-mints");
    const info = await Deno.stat(csrfSecretPath(home));
    assert.equal(info.mode! & 0o777, 0o600);
    const second = await loadOrCreateCsrfToken(home);
    assert.equal(second.token(), token);
    const [a, b] = await Promise.all([loadOrCreateCsrfToken(home), loadOrCreateCsrfToken(home)]);
    assert.equal(a.token(), b.token());
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("concurrent first starts agree on one token", async () => {
  const home = await Deno.makeTempDir();
  try {
    const sources = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateCsrfToken(home)));
    assert.equal(new Set(sources.map((s) => s.token())).size, 1);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a damaged token file is an error naming it, never silently replaced", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${home}/outpost`);
    await Deno.writeTextFile(csrfSecretPath(home), "short");
    await assert.rejects(() => loadOrCreateCsrfToken(home), new RegExp("csrf_secret"));
    assert.equal(await Deno.readTextFile(csrfSecretPath(home)), "short");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("csrfMetaTag and fixed tokens", () => {
  const source = fixedCsrfToken("a".repeat(40));
  assert.equal(csrfMetaTag(source), `<meta name="csrf-token" content="${"a".repeat(40)}">`);
  assert.throws(() => fixedCsrfToken("<script>"));
});
