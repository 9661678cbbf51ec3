// Podman helpers for the container test: the local base image (scripts/container_base.sh), an
// image holding this test's own deno binary at /deno (the `deno` npm package's binary, "copied
// in" through the Containerfile's DENO_IMAGE argument), the from-source build of the
// Containerfile, and a container's lifecycle. Every container runs with --network=host, so
// the fake model server on the host's loopback is reachable from inside.

import { readListeningUrl } from "./listening_kit.ts";

export const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
export const BASE_IMAGE = "localhost/bookworm-min";
export const DENO_IMAGE = `localhost/agent-deno-bin:${Deno.version.deno}`;

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs podman; throws with its stderr unless `allowFail`. */
export async function podman(
  args: string[],
  opts: { allowFail?: boolean; stdin?: Uint8Array; progress?: RegExp } = {},
): Promise<Result> {
  const child = new Deno.Command("podman", {
    args,
    stdin: opts.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const [stdout, stderr] = [child.stdout, child.stderr].map((s) => collect(s, opts.progress));
  if (opts.stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(opts.stdin);
    await writer.close();
  }
  const { code } = await child.status;
  const result = { code, stdout: await stdout!, stderr: await stderr! };
  if (result.code !== 0 && !opts.allowFail) {
    throw new Error(`podman ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  }
  return result;
}

/** A stream's text; lines matching `progress` are echoed as they come. */
async function collect(stream: ReadableStream<Uint8Array>, progress?: RegExp): Promise<string> {
  let text = "";
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    if (!progress) continue;
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    for (const line of lines) if (progress.test(line)) step(`  ${line}`);
  }
  return text;
}

async function imageExists(image: string): Promise<boolean> {
  return (await podman(["image", "exists", image], { allowFail: true })).code === 0;
}

/** One progress line of the container test on stderr (its long steps take minutes). */
export function step(line: string): void {
  console.error(`[container] ${line}`);
}

/** The debootstrap base (cached tarball; minutes only the first time on a machine). */
export async function ensureBaseImage(): Promise<void> {
  step(`base image ${BASE_IMAGE} (scripts/container_base.sh)`);
  const out = await new Deno.Command("bash", {
    args: [`${ROOT}/scripts/container_base.sh`, BASE_IMAGE],
    stdout: "inherit", // its progress lines
    stderr: "inherit",
  }).output();
  if (!out.success) {
    throw new Error(`container_base.sh failed (exit ${out.code}); its output is above`);
  }
}

/** An image whose only file is this process's deno binary at /deno. */
export async function ensureDenoImage(): Promise<void> {
  if (await imageExists(DENO_IMAGE)) return;
  step(`importing this deno binary as ${DENO_IMAGE}`);
  const dir = await Deno.makeTempDir({ prefix: "agent-deno-bin-" });
  try {
    await Deno.copyFile(Deno.execPath(), `${dir}/deno`);
    await Deno.chmod(`${dir}/deno`, 0o755);
    const tar = await new Deno.Command("tar", { args: ["-C", dir, "-c", "deno"], stdout: "piped" })
      .output();
    if (!tar.success) throw new Error("tar of the deno binary failed");
    await podman(["import", "-", DENO_IMAGE], { stdin: tar.stdout });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Builds the Containerfile's from-source image. A CA bundle named by DENO_CERT or
 * SSL_CERT_FILE is mounted into the build, for machines behind a TLS-intercepting proxy.
 */
export async function buildSourceImage(tag: string): Promise<void> {
  step(`building ${tag} from the Containerfile (minutes when its layers are not cached)`);
  const ca = [Deno.env.get("DENO_CERT"), Deno.env.get("SSL_CERT_FILE")].find((p) =>
    p !== undefined && p !== "" && isFile(p)
  );
  await podman([
    "build",
    "--format",
    "docker", // OCI images drop HEALTHCHECK
    "--network=host",
    "--build-arg",
    `BASE_IMAGE=${BASE_IMAGE}`,
    "--build-arg",
    `DENO_IMAGE=${DENO_IMAGE}`,
    "--build-arg",
    "PROGRAMS=source",
    ...(ca ? ["-v", `${ca}:/run/host-ca.crt:ro`, "--build-arg", "DENO_CERT=/run/host-ca.crt"] : []),
    "-t",
    tag,
    "-f",
    `${ROOT}/Containerfile`,
    ROOT,
  ], { progress: /^(\[\d+\/\d+\] )?STEP \d+\/\d+|^COMMIT|^--> Using cache/ });
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * Resolves with the outpost's URL once the container's log has printed its `listening on`
 * line for the `nth` time (1 for a first start, 2 after a restart): read from `podman logs
 * -f`, so the wait is on the line itself.
 */
export async function waitForListening(name: string, nth: number): Promise<string> {
  const child = new Deno.Command("podman", {
    args: ["logs", "-f", name],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const { url, seen } = await readListeningUrl(reader, { nth });
    if (url === null) throw new Error(`container ${name} stopped before listening:\n${seen}`);
    return url;
  } finally {
    await reader.cancel();
    try {
      child.kill("SIGTERM");
    } catch { /* already exited */ }
    await child.status;
    await stderr;
  }
}
