// Serialized JSON bodies kept until the store changes (see data_version.ts). Hot read routes
// (GET /api/jobs with 100 jobs is ~67 KiB built from ~3,200 columns) then cost one pragma
// read instead of a query and a stringify per request.

export class JsonBodyCache {
  readonly #version: () => number;
  readonly #entries = new Map<string, { version: number; body: string }>();

  constructor(version: () => number) {
    this.#version = version;
  }

  /** The cached body for `key`, rebuilt with `build` when the store changed since. */
  get(key: string, build: () => unknown): string {
    const version = this.#version();
    const hit = this.#entries.get(key);
    if (hit && hit.version === version) return hit.body;
    const body = JSON.stringify(build());
    // Read the version again: a commit during build must not pin a stale body.
    if (this.#version() === version) this.#entries.set(key, { version, body });
    return body;
  }
}
