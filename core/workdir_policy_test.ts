import assert from "node:assert/strict";
import { join } from "./path.ts";
import {
  acceptWorkdir,
  type ProtectedPlaces,
  workdirRefusal,
  WorkdirRefusedError,
  workdirRootsFrom,
} from "./workdir_policy.ts";

/** A user home with an agent home, a memory root elsewhere and a project; all real folders. */
async function layout() {
  const top = await Deno.realPath(await Deno.makeTempDir({ prefix: "workdir_policy_" }));
  const user = join(top, "user");
  const places: ProtectedPlaces = {
    agentHome: join(user, ".agent"),
    memoryRoot: join(top, "memroot"),
    settingsFiles: [join(user, ".agent", "settings.toml")],
    userHome: user,
  };
  for (const d of [places.agentHome, places.memoryRoot!, join(user, "proj"), join(top, "free")]) {
    await Deno.mkdir(d, { recursive: true });
  }
  await Deno.mkdir(join(places.agentHome, "sessions"));
  await Deno.mkdir(join(places.agentHome, "workspaces", "ranger"), { recursive: true });
  return { top, user, places, [Symbol.asyncDispose]: () => Deno.remove(top, { recursive: true }) };
}

/** Each bad workdir of issue 37 section 2, as spelled, and the words its refusal must carry. */
export function badWorkdirs(l: { top: string; user: string; places: ProtectedPlaces }) {
  return [
    ["/", /filesystem root/],
    ["/etc", /system folder \(\/etc\)/],
    ["/usr/share", /system folder \(\/usr\)/],
    ["/proc/self", /system folder \(\/proc\)/],
    ["/sys", /system folder/],
    ["/dev", /system folder/],
    ["/var/lib", /system folder \(\/var\)/],
    ["/run", /system folder/],
    [l.places.agentHome, /is the agent home/],
    [join(l.places.agentHome, "sessions"), /lies inside the agent home/],
    [join(l.places.agentHome, "workspaces"), /lies inside the agent home/],
    [l.places.memoryRoot!, /is the memory root/],
    [l.user, /is your home folder/],
    [l.top, /holds/],
  ] as const;
}

Deno.test("acceptWorkdir refuses every protected place, spelled or canonical", async () => {
  await using l = await layout();
  for (const [path, why] of badWorkdirs(l)) {
    await assert.rejects(acceptWorkdir(path, l.places), (err: unknown) => {
      assert.ok(err instanceof WorkdirRefusedError, `${path}: ${err}`);
      assert.match(err.message, why, path);
      assert.ok(!err.message.includes("\n"), "one line");
      return true;
    });
  }
});

Deno.test("acceptWorkdir resolves symlinks before judging", async () => {
  await using l = await layout();
  const link = join(l.top, "free", "innocent");
  await Deno.symlink(l.places.agentHome, link);
  await assert.rejects(acceptWorkdir(link, l.places), /is the agent home/);
  const dotdot = join(l.user, "proj", "..", ".agent", "sessions");
  await assert.rejects(acceptWorkdir(dotdot, l.places), /lies inside the agent home/);
});

Deno.test("acceptWorkdir accepts project folders and returns the canonical path", async () => {
  await using l = await layout();
  assert.equal(await acceptWorkdir(join(l.user, "proj"), l.places), join(l.user, "proj"));
  assert.equal(await acceptWorkdir(join(l.top, "free"), l.places), join(l.top, "free"));
  // The outpost's default chat workspaces sit under the agent home: each one is a project.
  const ranger = join(l.places.agentHome, "workspaces", "ranger");
  assert.equal(await acceptWorkdir(ranger, l.places), ranger);
  const link = join(l.top, "free", "to-proj");
  await Deno.symlink(join(l.user, "proj"), link);
  assert.equal(await acceptWorkdir(link, l.places), join(l.user, "proj"));
});

Deno.test("acceptWorkdir: missing, a file, relative: one line each", async () => {
  await using l = await layout();
  await assert.rejects(acceptWorkdir(join(l.top, "nope"), l.places), /does not exist/);
  await Deno.writeTextFile(join(l.top, "file"), "x");
  await assert.rejects(acceptWorkdir(join(l.top, "file"), l.places), /is not a directory/);
  await assert.rejects(acceptWorkdir("rel/dir", l.places), /not an absolute path/);
});

Deno.test("an agent home that does not exist yet is protected where it will be", async () => {
  await using l = await layout();
  const places = { ...l.places, agentHome: join(l.top, "free", "later", ".agent") };
  await assert.rejects(acceptWorkdir(join(l.top, "free"), places), /holds the agent home/);
});

Deno.test("workdirRefusal: temp areas under /var are ordinary, /var itself is not", () => {
  const places = { agentHome: "/home/u/.agent", userHome: "/home/u" };
  assert.equal(workdirRefusal("/var/tmp/build", places), null);
  assert.match(workdirRefusal("/var/tmp", places) ?? "", /system folder/);
  assert.equal(workdirRefusal("/home/u/src/app", places), null);
  assert.match(workdirRefusal("/home", places) ?? "", /holds/);
  assert.equal(workdirRefusal("/tmp/x", places), null);
});

Deno.test("opened roots: a CI server's checkouts under /var pass only when the operator opens them, and no other rule bends", () => {
  const base: ProtectedPlaces = {
    agentHome: "/var/lib/jenkins/.agent",
    userHome: "/var/lib/jenkins",
  };
  const checkout = "/var/lib/jenkins/workspace/proj";
  assert.match(workdirRefusal(checkout, base) ?? "", /system folder \(\/var\)/);
  const opened = { ...base, openedRoots: workdirRootsFrom("/var/lib/jenkins/workspace") };
  assert.equal(workdirRefusal(checkout, opened), null);
  // The root itself holds every job's checkout: still refused, as are the folders round it.
  assert.match(workdirRefusal("/var/lib/jenkins/workspace", opened) ?? "", /system folder/);
  assert.match(workdirRefusal("/var/lib/jenkins", opened) ?? "", /system folder|home folder/);
  assert.match(workdirRefusal("/etc/ssl", opened) ?? "", /system folder \(\/etc\)/);
  // An opened root never opens the agent home or anything else the agent protects.
  const homeInside = { ...opened, openedRoots: ["/var/lib/jenkins"] };
  assert.match(workdirRefusal("/var/lib/jenkins/.agent/sessions", homeInside) ?? "", /agent home/);
});

Deno.test("opened roots: AGENT_WORKDIR_ROOTS must name absolute folders other than /", () => {
  assert.deepEqual(workdirRootsFrom(undefined), []);
  assert.deepEqual(workdirRootsFrom(" /srv/ci/ : /var/lib/jenkins/workspace "), [
    "/srv/ci",
    "/var/lib/jenkins/workspace",
  ]);
  for (const bad of ["relative/dir", "/", "/var/../"]) {
    assert.throws(
      () => workdirRootsFrom(bad),
      /AGENT_WORKDIR_ROOTS: .* must be an absolute folder other than \//,
    );
  }
});
