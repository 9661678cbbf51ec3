import assert from "node:assert/strict";
import { resumeHereRefusal, resumeWorkdir } from "./resume_workdir.ts";
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

Deno.test("resumeHereRefusal: none for the same folder (also by a symlink); else both folders and the command", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const work = `${root}/work`;
    const other = `${root}/other folder`;
    await Deno.mkdir(work);
    await Deno.mkdir(other);
    await Deno.symlink(work, `${root}/link`);
    assert.equal(await resumeHereRefusal("s1", work, `${root}/link`), undefined);
    assert.equal(
      await resumeHereRefusal("s1", other, work),
      `s1 was saved in ${other}, but this session works in ${work}; its tools would act on the ` +
        `wrong folder. Resume it where it was started: cd '${other}' && agent --resume s1`,
    );
    await assert.rejects(
      resumeHereRefusal("s1", `${root}/gone`, work),
      (e: unknown) =>
        e instanceof SetupError && /s1's workdir .*gone does not exist/.test(e.message),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
