// A machine where bubblewrap is not installed, for the tests of what each door does without
// it: a PATH directory of symlinks to every program of /usr/bin and /bin except bwrap.

/** Makes `<home>/bin-without-bwrap` and returns its path; it lives and goes with `home`. */
export async function binWithoutBwrap(home: string): Promise<string> {
  const bin = `${home}/bin-without-bwrap`;
  await Deno.mkdir(bin);
  for (const dir of ["/usr/bin", "/bin"]) {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name === "bwrap") continue;
      await Deno.symlink(`${dir}/${entry.name}`, `${bin}/${entry.name}`).catch((err) => {
        if (!(err instanceof Deno.errors.AlreadyExists)) throw err; // /bin and /usr/bin overlap
      });
    }
  }
  return bin;
}
