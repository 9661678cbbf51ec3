import assert from "node:assert/strict";
import { jobInput, TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import {
  jsonOf,
  makeTestOutpost,
  TEST_CSRF_TOKEN,
  type TestOutpost,
} from "../../tests/fakes/test_outpost.ts";
import { CSRF_COOKIE, CSRF_HEADER } from "./csrf.ts";
import { mediaTypeRefusal } from "./json_body.ts";

/** A concrete path for a route pattern: every :param (with or without a regex) becomes 1. */
function concrete(pattern: string): string {
  return pattern.replace(/:[A-Za-z_]+(\{[^}]*\})?/g, "1").replace(/\*$/, "x");
}

/** `{"prompt":"a<0xff 0xfe>b", …}`: JSON syntax, but not UTF-8 inside a string. */
function nonUtf8Job(): Uint8Array<ArrayBuffer> {
  const text = JSON.stringify(jobInput({ prompt: "aXXb" }));
  const bytes = new TextEncoder().encode(text);
  const at = text.indexOf("XX");
  bytes[at] = 0xff;
  bytes[at + 1] = 0xfe;
  return bytes;
}

/** Headers that get a request past its door's check (CSRF cookie + header, or a bearer). */
function doorHeaders(path: string, bearer: string): Record<string, string> {
  return path.startsWith("/api/v1")
    ? { Authorization: `Bearer ${bearer}` }
    : { Cookie: `${CSRF_COOKIE}=${TEST_CSRF_TOKEN}`, [CSRF_HEADER]: TEST_CSRF_TOKEN };
}

/** Every route of both doors that takes a body: all non-GET/HEAD routes under /api/. */
function bodyRoutes(t: TestOutpost) {
  return t.app.routes.filter((r) =>
    r.method !== "GET" && r.method !== "ALL" && r.method !== "HEAD" && r.path.startsWith("/api/")
  );
}

Deno.test("JSON gate: every body-taking route of both doors refuses non-JSON types (415) and non-UTF-8 (400)", async () => {
  await using t = await makeTestOutpost();
  t.scheduler.createJob(jobInput()); // ids 1 exist, so a route that skipped the gate acts
  const bearer = t.machineToken();
  const routes = bodyRoutes(t);
  const seen = new Set(routes.map((r) => `${r.method} ${r.path}`));
  // Guards against an empty or partial enumeration.
  for (
    const expected of [
      "POST /api/jobs",
      "PUT /api/jobs/:id{[0-9]{1,15}}",
      "POST /api/jobs/:id{[0-9]{1,15}}/trigger",
      "POST /api/inbox/:id{[0-9]{1,15}}/answer",
      "POST /api/inbox/:id{[0-9]{1,15}}/dismiss",
      "POST /api/push/subscribe",
      "PUT /api/governor",
      "POST /api/v1/jobs",
      "POST /api/v1/jobs/:id{[0-9]{1,15}}/cancel",
    ]
  ) {
    assert.ok(seen.has(expected), `route ${expected} not enumerated`);
  }
  const json = new TextEncoder().encode(JSON.stringify({ answer: "x", action: "approve" }));
  const variants: [string, Record<string, string>, Uint8Array<ArrayBuffer>, number, string][] = [
    ["text/plain", { "Content-Type": "text/plain" }, json, 415, "unsupported_media_type"],
    ["no Content-Type", {}, json, 415, "unsupported_media_type"],
    [
      "a charset other than utf-8",
      { "Content-Type": "application/json; charset=iso-8859-1" },
      json,
      415,
      "unsupported_media_type",
    ],
    ["bytes 0xff 0xfe", { "Content-Type": "application/json" }, nonUtf8Job(), 400, "invalid_utf8"],
  ];
  for (const route of routes) {
    const path = concrete(route.path);
    for (const [label, headers, body, status, code] of variants) {
      const res = await t.app.request(path, {
        method: route.method,
        headers: { ...doorHeaders(path, bearer), ...headers },
        body,
      });
      assert.equal(res.status, status, `${route.method} ${path} with ${label}`);
      const answer = await jsonOf(res);
      assert.equal(answer.error.code, code, `${route.method} ${path} with ${label}`);
      assert.equal(typeof answer.error.message, "string");
    }
  }
  // Nothing happened: the one job is as created, no run queued, no audit row written.
  assert.equal(t.store.countJobs(), 1);
  assert.equal(t.store.getJob(1)!.prompt, "summarize the repo");
  assert.equal(t.store.listRuns(1).length, 0);
  assert.equal(t.store.listAudit().length, 0);
});

Deno.test("JSON gate: a non-UTF-8 job is refused with the error body on both doors and nothing is stored", async () => {
  await using t = await makeTestOutpost();
  const human = await t.app.request("/api/jobs", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...doorHeaders("/api/jobs", "") },
    body: nonUtf8Job(),
  });
  assert.equal(human.status, 400);
  assert.deepEqual(await jsonOf(human), {
    error: {
      code: "invalid_utf8",
      message: "body: not valid UTF-8; send JSON encoded as UTF-8",
      field: "body",
    },
  });
  const machine = await t.app.request("/api/v1/jobs", {
    method: "POST",
    headers: { Authorization: `Bearer ${t.machineToken()}`, "Content-Type": "application/json" },
    body: nonUtf8Job(),
  });
  assert.equal(machine.status, 400);
  assert.equal((await jsonOf(machine)).error.code, "invalid_utf8");
  assert.equal(t.store.countJobs(), 0);
});

Deno.test("JSON gate: application/json with charset=utf-8 (any case, quoted) is accepted; no body needs no type", async () => {
  await using t = await makeTestOutpost();
  for (const type of ["application/json; charset=utf-8", 'Application/JSON;Charset="UTF-8"']) {
    const res = await t.request("POST", "/api/jobs", jobInput({ name: type }), {
      "Content-Type": type,
    });
    assert.equal(res.status, 201, type);
  }
  // A body-less POST (curl -X POST …/trigger) carries no Content-Type and is fine.
  const trigger = await t.request("POST", "/api/jobs/1/trigger");
  assert.equal(trigger.status, 202);
  assert.equal(t.store.countJobs(), 2);
});

Deno.test("JSON gate: a streamed body without Content-Length is still capped (413)", async () => {
  await using t = await makeTestOutpost();
  const chunk = new TextEncoder().encode(`"${"x".repeat(64 * 1024)}`);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < 20) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const res = await t.app.request("/api/jobs", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...doorHeaders("/api/jobs", "") },
    body: stream,
  });
  assert.equal(res.status, 413);
  assert.equal((await jsonOf(res)).error.code, "payload_too_large");
  assert.equal(t.store.countJobs(), 0);
});

Deno.test("mediaTypeRefusal: application/json with at most charset=utf-8", () => {
  assert.equal(mediaTypeRefusal("application/json"), null);
  assert.equal(mediaTypeRefusal("application/json; charset=UTF-8"), null);
  assert.equal(mediaTypeRefusal("application/json;"), null);
  assert.match(mediaTypeRefusal(undefined)!, /missing Content-Type/);
  assert.match(mediaTypeRefusal("text/plain;charset=UTF-8")!, /not accepted/);
  assert.match(mediaTypeRefusal("application/json; charset=utf-16")!, /not accepted/);
  assert.match(mediaTypeRefusal("application/json; boundary=x")!, /not accepted/);
  assert.match(mediaTypeRefusal("application/jsonx")!, /not accepted/);
});

Deno.test("JSON gate: a job whose meta nests 60,000 deep is a 400 naming the depth on both doors, nothing stored", async () => {
  await using t = await makeTestOutpost();
  const deep = '{"a":'.repeat(60_000) + "1" + "}".repeat(60_000);
  const submit = (meta: string) =>
    `{"prompt":"p","workdir":${JSON.stringify(TEST_WORKDIR)},"meta":${meta}}`;
  const post = (path: string, body: string) =>
    t.app.request(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...doorHeaders(path, t.machineToken()) },
      body,
    });
  for (const path of ["/api/v1/jobs", "/api/jobs"]) {
    const res = await post(path, submit(deep));
    assert.equal(res.status, 400, path);
    const { error } = await jsonOf(res);
    assert.equal(error.code, "json_too_deep", path);
    assert.equal(error.field, "body");
    assert.match(error.message, /nested deeper than 64 levels/);
  }
  assert.equal(t.store.countJobs(), 0);
  // At the limit (64 levels, the body's own object included) the one-shot is taken.
  const ok = await post("/api/v1/jobs", submit('{"a":'.repeat(63) + "1" + "}".repeat(63)));
  assert.equal(ok.status, 202, JSON.stringify(await jsonOf(ok)));
  assert.equal(t.store.countJobs(), 1);
});
