// The one way anything the model causes gets started: a command spec goes in, the argv and
// environment to spawn come out, wrapped in the sandbox the settings chose. The shell tool uses
// it today; MCP stdio servers and any later tool that spawns reuse it. docs/sandbox.md holds the
// threat model.

import type { Env } from "../ports.ts";
import {
  bubblewrapArgs,
  type BubblewrapLayout,
  inspectLayout,
  isWithin,
  type ReadPath,
  realOrNull,
} from "./bubblewrap.ts";
import { forbiddenPassEnv, MODEL_KEY_VARS, sandboxEnv, withoutModelKeys } from "./environment.ts";
import { canonicalWorkdirRefusal, type ProtectedPlaces } from "../workdir_policy.ts";
import { PROJECT_DIR_NAME } from "../settings/project.ts";
import type { HiddenPath } from "./bubblewrap.ts";

/** `sandbox` setting: auto (the platform's sandbox or refuse), bubblewrap (insist), off. */
export type SandboxMode = "auto" | "bubblewrap" | "off";
export const SANDBOX_MODES: readonly SandboxMode[] = ["auto", "bubblewrap", "off"];

/** What to run: an argv (argv[0] looked up on PATH) in a directory. */
export interface CommandSpec {
  argv: readonly string[];
  cwd: string;
  /** Extra variables for this command (an MCP server's `env` table); model key names refused. */
  env?: Readonly<Record<string, string>>;
  /** Absolute host paths bound read-only (an MCP server's `read_paths`); hidden ones refused. */
  readPaths?: readonly string[];
  /** Overrides the sandbox's network for this command (an MCP server's `network`). */
  network?: boolean;
  /**
   * Directories the agent itself installed for this command (a launcher MCP server's package,
   * under the agent home: core/mcp/package_install.ts), bound read-only over the masks. Never
   * taken from settings: read_paths may not reach into the agent home.
   */
  installDirs?: readonly string[];
}

/** Ready for spawn(command, args, { cwd, env }). */
export interface WrappedCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** The sandbox cannot run here; `message` is the one-line refusal with the way out. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

/** A `sandbox_env` that names a model key, or another setting the sandbox refuses. */
export class SandboxConfigError extends Error {
  override name = "SandboxConfigError";
}

export interface SandboxOptions {
  mode: SandboxMode;
  /** sandbox_network = on: share the host's network. */
  network: boolean;
  /** Names from the agent's environment the commands may see (sandbox_env). */
  passEnv: readonly string[];
  /** Canonical workdir: the only host directory the commands can write. */
  workdir: string;
  /** Never visible: agent home, memory root, settings files, the real HOME. */
  hidden: readonly string[];
  /**
   * What a workdir may not be, hold or lie inside (core/workdir_policy.ts): the sandbox refuses
   * to bind such a workdir even if a door let it through.
   */
  places: ProtectedPlaces;
  /**
   * Hidden directories whose subdirectories `read_paths` may still name (the real HOME: a tool
   * installed under ~/.cache); naming the directory itself or a parent stays refused.
   */
  openInside?: readonly string[];
  /** Visible but read-only, when inside the workdir (the project settings file). */
  readOnly: readonly string[];
  /** The agent's environment: PATH to find bwrap on, values for the allowlist. */
  env: Env;
  /** Where `sandbox = "off"` goes, for the refusal's hint. */
  settingsPath: string;
  /** Deno.build.os unless a test says otherwise. */
  os?: string;
}

export interface Sandbox {
  readonly mode: SandboxMode;
  readonly network: boolean;
  /** One line for the banner, `agent config`, reports: what confines the model's commands. */
  describe(): string;
  /** null when commands can run; otherwise the refusal (probes bubblewrap once). */
  check(): Promise<string | null>;
  /** The spawnable command; throws SandboxUnavailableError when the sandbox cannot run. */
  wrap(spec: CommandSpec): Promise<WrappedCommand>;
  /**
   * At the end of the run: removes the `.agent` mount points bwrap had to create in workdirs
   * that had none (left only when still empty), so a run leaves no folder behind.
   */
  close(): Promise<void>;
}

export function openSandbox(opts: SandboxOptions): Sandbox {
  const forbidden = forbiddenPassEnv(opts.passEnv);
  if (forbidden.length > 0) {
    throw new SandboxConfigError(
      `sandbox_env may not list ${forbidden.join(", ")}: the model's commands never see the ` +
        `agent's model keys (${MODEL_KEY_VARS.join(", ")})`,
    );
  }
  return opts.mode === "off" ? unsandboxed(opts) : new BubblewrapSandbox(opts);
}

function unsandboxed(opts: SandboxOptions): Sandbox {
  return {
    mode: "off",
    network: true,
    describe: () => "off (commands run unsandboxed, as the agent's user)",
    check: () => Promise.resolve(null),
    close: () => Promise.resolve(),
    wrap: (spec) => {
      const [command, ...args] = spec.argv;
      if (command === undefined) throw new TypeError("empty argv");
      return Promise.resolve({
        command,
        args,
        cwd: spec.cwd,
        env: withoutModelKeys(opts.env.toObject()),
      });
    },
  };
}

class BubblewrapSandbox implements Sandbox {
  readonly mode: SandboxMode;
  readonly network: boolean;
  readonly #opts: SandboxOptions;
  #probe: Promise<{ bwrap: string } | { refusal: string }> | undefined;
  #refusal: string | null = null;
  /** `.agent` folders that did not exist when a command was wrapped: bwrap makes them. */
  readonly #madeMountPoints = new Set<string>();

  constructor(opts: SandboxOptions) {
    this.mode = opts.mode;
    this.network = opts.network;
    this.#opts = opts;
  }

  describe(): string {
    const what = `bubblewrap, network ${this.network ? "on" : "off"}`;
    if (this.#refusal !== null) return `${this.mode}: unavailable, shell calls refused`;
    return this.mode === "auto" ? `auto (${what})` : what;
  }

  async check(): Promise<string | null> {
    const probe = await this.#probed();
    return "refusal" in probe ? probe.refusal : null;
  }

  async wrap(spec: CommandSpec): Promise<WrappedCommand> {
    const probe = await this.#probed();
    if ("refusal" in probe) throw new SandboxUnavailableError(probe.refusal);
    // The layout is read at each call (a handful of stat calls): a settings file created
    // since the last call is hidden too.
    const extraEnv = spec.env ?? {};
    const forbidden = forbiddenPassEnv(Object.keys(extraEnv));
    if (forbidden.length > 0) {
      throw new SandboxConfigError(
        `env may not set ${forbidden.join(", ")}: nothing in the sandbox sees a model key name ` +
          `(${MODEL_KEY_VARS.join(", ")})`,
      );
    }
    const readPaths = confinedReadPaths(
      spec.readPaths ?? [],
      this.#opts.hidden,
      this.#opts.openInside ?? [],
    );
    const refusal = canonicalWorkdirRefusal(spec.cwd, this.#opts.places);
    if (refusal !== null) {
      throw new SandboxConfigError(`sandbox: workdir ${spec.cwd} ${refusal}; it is not bound`);
    }
    const projectMask = this.#projectMask(spec.cwd);
    const layout = {
      ...this.#layout(spec.cwd, spec.network ?? this.network, readPaths, projectMask),
      installDirs: (spec.installDirs ?? []).map((dir) => {
        const real = realOrNull(dir);
        if (real === null) throw new SandboxConfigError(`installed package ${dir} is missing`);
        return { source: real, target: dir };
      }),
    };
    return {
      command: probe.bwrap,
      args: bubblewrapArgs(layout, spec.argv),
      cwd: spec.cwd,
      // bwrap itself gets the clean environment, so no process in the sandbox (its pid 1 is a
      // bwrap) ever held a key in its /proc/<pid>/environ.
      env: { ...sandboxEnv(this.#opts.env.toObject(), this.#opts.passEnv), ...extraEnv },
    };
  }

  #layout(
    workdir: string | null,
    network = this.network,
    readPaths: readonly ReadPath[] = [],
    projectMask: HiddenPath | null = null,
  ): BubblewrapLayout {
    return inspectLayout({
      workdir,
      network,
      hidden: this.#opts.hidden,
      readOnly: this.#opts.readOnly,
      readPaths,
      projectMask,
    });
  }

  /**
   * The workdir's `.agent` as bwrap must mask it, or null when there is nothing to mask. Absent:
   * it is made here as the mount point (an empty folder, which git does not track) and close()
   * removes it; in a workdir this user cannot write, commands cannot make one either, so there
   * is no mask. A symlink is masked at its target when that lies in the workdir; one leading
   * out cannot be masked (the command could replace the link), so the command is refused.
   */
  #projectMask(workdir: string): HiddenPath | null {
    const path = `${workdir.replace(/\/+$/, "")}/${PROJECT_DIR_NAME}`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      return this.#makeMountPoint(path);
    }
    if (!info.isSymlink) return { path, dir: info.isDirectory };
    const real = realOrNull(path);
    if (real !== null && real !== workdir && isWithin(real, workdir)) {
      return { path: real, dir: Deno.statSync(real).isDirectory };
    }
    throw new SandboxConfigError(
      `sandbox: ${path} is a symlink leading out of the workdir, so it cannot be kept from the ` +
        `model's commands; make it a folder (or remove it)`,
    );
  }

  #makeMountPoint(path: string): HiddenPath | null {
    try {
      Deno.mkdirSync(path, { mode: 0o700 });
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) return { path, dir: true }; // a racing run
      if (err instanceof Deno.errors.NotFound) return null; // the workdir is gone: spawn says so
      const readOnly = err instanceof Error && /os error 30\b/.test(err.message); // EROFS
      if (err instanceof Deno.errors.PermissionDenied || readOnly) return null;
      throw err;
    }
    this.#madeMountPoints.add(path);
    return { path, dir: true };
  }

  async close(): Promise<void> {
    for (const path of this.#madeMountPoints) {
      try {
        await Deno.remove(path); // not recursive: a folder someone filled meanwhile stays
      } catch (err) {
        const benign = err instanceof Deno.errors.NotFound ||
          (err instanceof Error && /not empty|ENOTEMPTY/i.test(err.message));
        if (!benign) throw err;
      }
    }
    this.#madeMountPoints.clear();
  }

  #probed(): Promise<{ bwrap: string } | { refusal: string }> {
    this.#probe ??= this.#runProbe().then((p) => {
      if ("refusal" in p) this.#refusal = p.refusal;
      return p;
    });
    return this.#probe;
  }

  async #runProbe(): Promise<{ bwrap: string } | { refusal: string }> {
    const optOut = `or set sandbox = "off" in ${this.#opts.settingsPath} ` +
      `(or AGENT_SANDBOX_MODE=off) to run shell commands unsandboxed`;
    const os = this.#opts.os ?? Deno.build.os;
    if (os !== "linux") {
      return {
        refusal: `sandbox: no sandbox for ${os} yet (docs/sandbox.md); ${optOut}`,
      };
    }
    const bwrap = findOnPath("bwrap", this.#opts.env.get("PATH") ?? "");
    if (bwrap === null) {
      return {
        refusal: "sandbox: bubblewrap is not installed (no bwrap on PATH): install it " +
          `(apt-get install bubblewrap, dnf install bubblewrap), ${optOut}`,
      };
    }
    // A trial run with the real flags (no workdir): bwrap can be installed yet unable to
    // create namespaces or mount its /proc (user namespaces off, a container's seccomp
    // profile or masked /proc).
    const out = await new Deno.Command(bwrap, {
      args: bubblewrapArgs(this.#layout(null), ["true"]),
      env: sandboxEnv(this.#opts.env.toObject(), []),
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return { bwrap };
    const why = new TextDecoder().decode(out.stderr).trim().split("\n")[0] ||
      `exit code ${out.code}`;
    return {
      refusal: `sandbox: bubblewrap cannot start here (${why}): ${this.#cannotStartHint(optOut)}`,
    };
  }

  /**
   * The way out when bwrap is installed but cannot start. Under the outpost (it stamps
   * AGENT_SANDBOX=container on every job child) the usual cause is the container engine's
   * masked /proc, which forbids bwrap's fresh /proc mount: the fix is an option of the
   * container's run command, so the hint names it (the outpost may also run on a bare host).
   */
  #cannotStartHint(optOut: string): string {
    if (this.#opts.env.get("AGENT_SANDBOX") === "container") {
      return `in a container, start it with ${CONTAINER_UNMASK_OPTION} ` +
        `(docker: ${DOCKER_UNMASK_OPTION}; docs/sandbox.md, "Containers"); on a bare host, ` +
        `allow unprivileged user namespaces; or set AGENT_SANDBOX_MODE=off in the container's ` +
        `environment to run shell commands unsandboxed with the container as the only wall`;
    }
    return `allow unprivileged user namespaces or see docs/sandbox.md for containers, ${optOut}`;
  }
}

/**
 * Checks `read_paths` against what the sandbox hides: each must be absolute and exist, and must
 * neither be nor contain a hidden path (the agent home, the memory root, a settings file, the real
 * HOME) nor lie inside one (except the real HOME: a tool installed under ~/.cache is the reason
 * read_paths exists). Compared canonically, so a symlink cannot smuggle the agent home in.
 */
export function confinedReadPaths(
  paths: readonly string[],
  hidden: readonly string[],
  openInside: readonly string[] = [],
): ReadPath[] {
  const out: ReadPath[] = [];
  const realHidden = hidden.flatMap((h) => [h, realOrNull(h) ?? h]);
  const openable = new Set(openInside.flatMap((h) => [h, realOrNull(h) ?? h]));
  for (const path of paths) {
    if (!path.startsWith("/")) {
      throw new SandboxConfigError(`read_paths entry ${JSON.stringify(path)} is not absolute`);
    }
    const real = realOrNull(path);
    if (real === null) {
      throw new SandboxConfigError(`read_paths entry ${path} does not exist`);
    }
    for (const candidate of new Set([path, real])) {
      for (const h of realHidden) {
        const inside = isWithin(candidate, h) && !openable.has(h);
        if (isWithin(h, candidate) || inside) {
          throw new SandboxConfigError(
            `read_paths entry ${path} would expose ${h}: the agent home, the memory root, the ` +
              "settings files and the real HOME never enter the sandbox",
          );
        }
      }
    }
    out.push({ source: real, target: path });
  }
  return out;
}

/** The podman run option that lets bwrap mount its own /proc (docs/sandbox.md, "Containers"). */
export const CONTAINER_UNMASK_OPTION = "--security-opt unmask=/proc/*";
/** Docker's equivalent of CONTAINER_UNMASK_OPTION. */
export const DOCKER_UNMASK_OPTION = "--security-opt systempaths=unconfined";

/** The first executable file called `name` on `path` (a PATH value), or null. */
export function findOnPath(name: string, path: string): string | null {
  for (const dir of path.split(":")) {
    if (dir === "") continue;
    const candidate = `${dir}/${name}`;
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) continue;
      throw err;
    }
  }
  return null;
}
