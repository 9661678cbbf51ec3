// The real outpost process never makes Deno print its `request.signal aborts on successful
// responses (legacy behavior)` warning (issue 33). Deno prints it once a handler has read a
// served request's signal and the response went out; hono/body-limit did so for every body
// sent without a Content-Length (it wrapped the request in `new Request(request, …)`). Both body
// doors now read the stream themselves (server/http/capped_body.ts).

import assert from "node:assert/strict";
import { tempHome } from "./agent_process.ts";
import { cli, startOutpost, stop } from "./outpost_process_kit.ts";

/** A body Deno's fetch sends chunked: a stream, so no Content-Length. */
function streamed(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

Deno.test("a chunked request body through the machine door and the webhook door prints no legacy-abort warning", async () => {
  const home = await tempHome();
  const outpost = await startOutpost(home, {});
  let ended: { code: number; stderr: string } | undefined;
  try {
    const token = await cli(home, ["token", "create", "probe"]);
    assert.equal(token.code, 0, token.stderr);
    const door = await fetch(new URL("api/v1/jobs", outpost.url), {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token.stdout.trim()}`,
        "Content-Type": "application/json",
      },
      body: streamed(JSON.stringify({ prompt: "hi" })),
    });
    // A successful response (a validation error is one too): the body was read and judged.
    assert.equal(door.status, 400);
    assert.match((await door.json()).error.message, /workdir/);
    const hook = await fetch(new URL("hooks/github/no-such-recipe", outpost.url), {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-GitHub-Event": "ping" },
      body: streamed("{}"),
    });
    await hook.body?.cancel();
    assert.ok(hook.status >= 400 && hook.status < 500, String(hook.status));
  } finally {
    ended = await stop(outpost);
    await Deno.remove(home, { recursive: true });
  }
  assert.equal(ended.code, 0, ended.stderr);
  assert.doesNotMatch(ended.stderr, /request\.signal|legacy/, ended.stderr);
});
