// The Matrix transport on the SDK's HTTP layer alone: it loads only lib/http-api (the package
// root's createClient costs the outpost ~30 MiB of resident memory, issue 16), and still speaks
// the client-server API v3 with the token in the Authorization header, parses Matrix errors
// and aborts what is in flight on close. The whole bot against a real Synapse is
// tests/e2e/messenger_synapse_test.ts; this file pins what that test cannot see.

import assert from "node:assert/strict";
import { createTransport } from "./matrix_sdk_transport.ts";

const SOURCE = new URL("./matrix_sdk_transport.ts", import.meta.url);

Deno.test("the transport imports the SDK's HTTP layer, never the package root", async () => {
  const source = await Deno.readTextFile(SOURCE);
  const specifiers = [...source.matchAll(/^import\b[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]!);
  const sdk = specifiers.filter((s) => s.startsWith("matrix-js-sdk"));
  assert.ok(sdk.length > 0, "the transport is built on matrix-js-sdk");
  for (const s of sdk) {
    assert.ok(
      s.startsWith("matrix-js-sdk/lib/http-api/") || s.startsWith("matrix-js-sdk/lib/models/"),
      `${s}: import the HTTP layer only; the package root loads the whole client`,
    );
  }
});

interface Seen {
  url: string;
  method: string;
  auth: string | null;
  body: string | null;
}

function recordingFetch(seen: Seen[], reply: (url: URL) => Response): typeof globalThis.fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    seen.push({
      url: url.href,
      method: init?.method ?? "GET",
      auth: headers.get("Authorization"),
      body: typeof init?.body === "string" ? init.body : null,
    });
    return Promise.resolve(reply(url));
  };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

Deno.test("requests go to /_matrix/client/v3 with the bearer token; errors carry errcode", async () => {
  const seen: Seen[] = [];
  const transport = createTransport({
    homeserver: "http://hs.test",
    token: "syt_secret",
    fetch: recordingFetch(seen, (url) => {
      if (url.pathname.endsWith("/account/whoami")) return json(200, { user_id: "@bot:hs.test" });
      if (url.pathname.includes("/send/")) return json(200, { event_id: "$e1" });
      return json(403, { errcode: "M_FORBIDDEN", error: "not in room" });
    }),
  });
  assert.equal(await transport.whoami(), "@bot:hs.test");
  assert.equal(await transport.send("!r:hs.test", "hello", { replyTo: "$q" }), "$e1");
  await assert.rejects(transport.join("!r:hs.test"), (e: Error & { errcode?: string }) => {
    assert.equal(e.errcode, "M_FORBIDDEN");
    return true;
  });
  assert.equal(seen[0]!.url, "http://hs.test/_matrix/client/v3/account/whoami");
  assert.match(
    seen[1]!.url,
    /^http:\/\/hs\.test\/_matrix\/client\/v3\/rooms\/!r%3Ahs\.test\/send\//,
  );
  assert.equal(seen[1]!.method, "PUT");
  assert.deepEqual(JSON.parse(seen[1]!.body!), {
    msgtype: "m.notice",
    body: "hello",
    "m.relates_to": { "m.in_reply_to": { event_id: "$q" } },
  });
  assert.equal(seen[2]!.url, "http://hs.test/_matrix/client/v3/join/!r%3Ahs.test");
  for (const s of seen) assert.equal(s.auth, "Bearer syt_secret");
  transport.close();
});

Deno.test("close aborts a long poll in flight", async () => {
  let started!: () => void;
  const polling = new Promise<void>((resolve) => started = resolve);
  const transport = createTransport({
    homeserver: "http://hs.test",
    token: "t",
    fetch: (_input, init) =>
      new Promise((_resolve, reject) => {
        started();
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
      }),
  });
  const sync = transport.sync(null, 30_000, new AbortController().signal); // never aborted itself
  await polling;
  transport.close();
  await assert.rejects(sync);
});
