// Issue 37 §2: every outpost door that takes a workdir (dashboard create and edit, the machine
// door, recipes enable, chat `run`) refuses each protected place with a 400 (a chat refusal)
// naming the field, and stores nothing. The CLI doors' table is tests/e2e/workdir_doors_test.ts.

import assert from "node:assert/strict";
import { basename, dirname, join } from "../../core/path.ts";
import { CommandRunner } from "../../core/messenger/commands.ts";
import { RefusalError } from "../../core/messenger/replies.ts";
import { jobInput, TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf, makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";

/** Each bad workdir (as a door receives it) and what its refusal must say. */
async function badWorkdirs(t: TestOutpost, userHome: string): Promise<[string, RegExp][]> {
  const link = join(TEST_WORKDIR, `link-to-home-${crypto.randomUUID()}`);
  await Deno.symlink(t.home, link);
  await Deno.mkdir(join(t.home, "outpost"), { recursive: true });
  return [
    ["/", /filesystem root/],
    ["/etc", /system folder \(\/etc\)/],
    ["/usr/share", /system folder \(\/usr\)/],
    ["/proc/self", /system folder \(\/proc\)/], // was a 500 (issue 37 §6)
    ["/sys", /system folder/],
    ["/dev", /system folder/],
    ["/var/lib", /system folder \(\/var\)/],
    [t.home, /is the agent home/],
    [join(t.home, "outpost"), /lies inside the agent home/],
    [t.memoryRoot, /lies inside the agent home|memory root/],
    [dirname(t.home), /holds the agent home/],
    [link, /resolves to .* which is the agent home/],
    [userHome, /is your home folder/],
  ];
}

async function outpostWithHome() {
  const userHome = await Deno.makeTempDir({ dir: TEST_WORKDIR, prefix: "user_home_" });
  const t = await makeTestOutpost({ env: { HOME: userHome } });
  await Deno.mkdir(t.memoryRoot, { recursive: true });
  return { t, userHome };
}

type Door = (t: TestOutpost, workdir: string) => Promise<{ status: number; message: string }>;

const httpDoor = (
  send: (t: TestOutpost, workdir: string) => Response | Promise<Response>,
): Door => {
  return async (t, workdir) => {
    const res = await send(t, workdir);
    const body = await jsonOf(res);
    if (res.status === 400) assert.equal(body.error.field, "workdir", JSON.stringify(body));
    return { status: res.status, message: body.error?.message ?? "" };
  };
};

const DOORS: [string, Door][] = [
  [
    "POST /api/jobs",
    httpDoor((t, workdir) => t.request("POST", "/api/jobs", jobInput({ workdir }))),
  ],
  [
    "PUT /api/jobs/<id>",
    httpDoor((t, workdir) => {
      const job = t.scheduler.createJob(jobInput({ name: `edit ${crypto.randomUUID()}` }));
      return t.request("PUT", `/api/jobs/${job.id}`, { workdir });
    }),
  ],
  [
    "POST /api/v1/jobs",
    httpDoor((t, workdir) =>
      t.app.request("/api/v1/jobs", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${t.machineToken()}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ prompt: "look around", workdir }),
      })
    ),
  ],
  [
    "POST /api/recipes/<id>/enable",
    httpDoor((t, workdir) =>
      t.request("POST", "/api/recipes/morning-pr-review/enable", {
        config: { workdir, repo: "acme/widgets", max_prs: 3 },
      })
    ),
  ],
  [
    "chat run",
    async (t, workdir) => {
      if (workdir === "/") return { status: 400, message: "filesystem root" }; // not nameable
      const runner = new CommandRunner({
        store: t.store,
        scheduler: t.scheduler,
        inbox: t.deps.inbox,
        logger: t.logger,
        baseUrl: "http://outpost.test",
        workspacesRoot: dirname(workdir),
        workdirPlaces: t.deps.workdirPlaces,
        clock: t.clock,
      });
      try {
        const reply = await runner.execute(
          { verb: "run", workspace: basename(workdir), prompt: "look around" },
          { sender: "@alice:test", room: "!dm:test" },
        );
        return { status: 200, message: reply };
      } catch (err) {
        if (!(err instanceof RefusalError)) throw err;
        return { status: 400, message: err.message };
      }
    },
  ],
];

Deno.test("every outpost door refuses every protected workdir with a 400 and stores nothing", async () => {
  const { t, userHome } = await outpostWithHome();
  await using _ = t;
  for (const [door, send] of DOORS) {
    for (const [workdir, why] of await badWorkdirs(t, userHome)) {
      const before = t.store.listJobs().map((j) => `${j.id}:${j.workdir}`);
      const { status, message } = await send(t, workdir);
      assert.equal(status, 400, `${door} ${workdir}: ${message}`);
      // Chat names a folder under its root: a link leading out of it is refused as such.
      const chatLink = door === "chat run" && workdir.includes("link-to-home");
      if (door !== "chat run" || workdir !== "/") {
        assert.match(message, chatLink ? /leads outside/ : why, `${door} ${workdir}`);
      }
      assert.ok(!message.includes("\n"), "one line");
      const after = t.store.listJobs().map((j) => `${j.id}:${j.workdir}`);
      // PUT's own setup adds one job with a good workdir; nothing else changes.
      const added = after.filter((j) => !before.includes(j));
      assert.ok(added.every((j) => j.endsWith(`:${TEST_WORKDIR}`)), `${door}: ${added}`);
    }
  }
});

Deno.test("the doors accept a project folder and store its canonical path", async () => {
  const { t, userHome } = await outpostWithHome();
  await using _ = t;
  const project = join(userHome, "src", "app");
  await Deno.mkdir(project, { recursive: true });
  const link = join(TEST_WORKDIR, `link-to-app-${crypto.randomUUID()}`);
  await Deno.symlink(project, link);
  const res = await t.request("POST", "/api/jobs", jobInput({ workdir: link }));
  assert.equal(res.status, 201);
  assert.equal((await jsonOf(res)).job.workdir, project);
});
