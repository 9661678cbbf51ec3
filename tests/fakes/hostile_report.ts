// What a hostile run can leave where its report should be: a symlink to a file outside the
// runs folder, a FIFO, a folder. Shared by the report reader's tests and the route and page
// tests that show reports; the FIFO also by the tests of every other file the programs read
// from a place the model can write (settings, AGENTS.md, git's pointers).
//
// A FIFO gets a writer process (`sh -c 'printf … > fifo'`), blocked in open() until some
// reader opens the FIFO. It makes a test of code that wrongly opens the FIFO fail on the
// secret it then reads, instead of hanging; with correct code the writer stays blocked and
// is killed on dispose.

import { mkfifo } from "../e2e/outpost_fifo.ts";

export const SECRET = "SECRET-outside-the-runs-folder";

/** A file outside the runs folder holding SECRET. */
export async function secretFile(home: string): Promise<string> {
  const path = `${home}/secret.md`;
  await Deno.writeTextFile(path, `${SECRET}\n`);
  return path;
}

/** Replaces `path` (if there) with a symlink to `target`. */
export async function replaceWithSymlink(path: string, target: string): Promise<void> {
  await Deno.remove(path).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
  await Deno.symlink(target, path);
}

export interface FifoWithWriter extends AsyncDisposable {
  path: string;
}

/** A FIFO at `path` whose writer sends `text` to the first reader that opens it. */
export async function fifoWithWriter(path: string, text = SECRET): Promise<FifoWithWriter> {
  await mkfifo(path);
  const writer = new Deno.Command("sh", {
    args: ["-c", 'printf "%s\\n" "$1" > "$2"', "sh", text, path],
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    path,
    async [Symbol.asyncDispose]() {
      try {
        writer.kill("SIGKILL");
      } catch (err) {
        // Already exited: some reader opened the FIFO (the tests then fail on the secret).
        if (!(err instanceof TypeError)) throw err;
      }
      await writer.status;
    },
  };
}
