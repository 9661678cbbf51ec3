import assert from "node:assert/strict";
import { resumeWorkdir } from "./resume_workdir.ts";
import { SetupError } from "./setup.ts";

Deno.test("resumeWorkdir: the saved folder, also when --workdir names it by a symlink or relatively", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const work = `${root}/work`;
    await Deno.mkdir(work);
    await Deno.symlink(work, `${root}/link`);
    assert.equal(await resumeWorkdir(work, undefined, "/"), work);
    assert.equal(await resumeWorkdir(work, `${root}/link`, "/"), work);
    assert.equal(await resumeWorkdir(work, "work", root), work);
    await Deno.mkdir(`${root}/other`);
    await assert.rejects(
      resumeWorkdir(work, "other", root),
      (e: unknown) =>
        e instanceof SetupError &&
        e.message.startsWith(`--workdir ${root}/other is not this session's workdir ${work}`),
    );
    await assert.rejects(
      resumeWorkdir(`${root}/gone`, undefined, root),
      /the session's workdir .*gone does not exist/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
