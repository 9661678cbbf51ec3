import assert from "node:assert/strict";
import { readRegularFileSync } from "./regular_file.ts";

Deno.test("readRegularFileSync reads a regular file up to the cap and says when it cut", async () => {
  const dir = await Deno.makeTempDir({ prefix: "regular_file_" });
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, "hello world");
    const whole = readRegularFileSync(`${dir}/a.txt`, 100);
    assert.equal(whole.kind, "read");
    if (whole.kind === "read") {
      assert.equal(new TextDecoder().decode(whole.bytes), "hello world");
      assert.equal(whole.truncated, false);
    }
    const cut = readRegularFileSync(`${dir}/a.txt`, 5);
    assert.ok(cut.kind === "read" && cut.truncated && cut.size === 11);
    assert.equal(cut.kind === "read" && new TextDecoder().decode(cut.bytes), "hello");
    assert.deepEqual(readRegularFileSync(`${dir}/missing`, 5), { kind: "absent" });
    assert.deepEqual(readRegularFileSync(`${dir}/a.txt/below`, 5), { kind: "absent" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRegularFileSync skips a FIFO, a device and a directory without opening them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "regular_file_" });
  try {
    assert.ok((await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output()).success);
    assert.deepEqual(readRegularFileSync(`${dir}/fifo`, 5), {
      kind: "skipped",
      why: "is a FIFO, not a regular file",
    });
    assert.deepEqual(readRegularFileSync("/dev/zero", 5), {
      kind: "skipped",
      why: "is a character device, not a regular file",
    });
    assert.deepEqual(readRegularFileSync(dir, 5), {
      kind: "skipped",
      why: "is a directory, not a regular file",
    });
    await Deno.symlink(`${dir}/fifo`, `${dir}/link`);
    assert.equal(readRegularFileSync(`${dir}/link`, 5).kind, "skipped", "a link to a FIFO too");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
