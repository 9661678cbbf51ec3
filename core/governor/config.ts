// Governor levers (spec 2.5), persisted to <home>/outpost/governor.json. A file that does
// not parse or holds a bad value is an error naming the lever; it is never overwritten
// with defaults (the operator's file is theirs to fix).

import { join } from "node:path";
import { writeFileAtomic } from "../atomic_write.ts";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../private_files.ts";
import type { Env } from "../ports.ts";
import { GovernorConfigError } from "./errors.ts";

/** Classes the governor admits; interactive sessions (priority 0) are never governed. */
export type GovernedClass = "api" | "scheduled";
export const GOVERNED_CLASSES: readonly GovernedClass[] = ["api", "scheduled"];

/** Default priority per class; lower runs first. 0 is reserved for interactive sessions. */
export const CLASS_PRIORITY = { interactive: 0, api: 5, scheduled: 10 } as const;

export interface GovernorConfig {
  /** Per-class admission cap; 0 admits none of that class. */
  max_concurrent: Record<GovernedClass, number>;
  /** Queued runs allowed before a background submission is refused (503). */
  queue_depth_max: number;
  /** Completed-run tokens (in + out) per rolling 60 minutes; 0 = unlimited. */
  tokens_per_hour: Record<GovernedClass, number>;
  /** Hold background admission while the model server has this many waiting requests. */
  defer_when_interactive: boolean;
  defer_threshold: number;
}

export const DEFAULT_GOVERNOR_CONFIG: Readonly<GovernorConfig> = Object.freeze({
  max_concurrent: { api: 2, scheduled: 2 },
  queue_depth_max: 16,
  tokens_per_hour: { api: 0, scheduled: 0 },
  defer_when_interactive: false,
  defer_threshold: 2,
});

export const TOTAL_CAP_DEFAULT = 4;
const TOTAL_CAP_MAX = 64;

export function governorPath(home: string): string {
  return join(home, "outpost", "governor.json");
}

/** The hard sum cap on concurrent runs: MAX_CONCURRENT_RUNS, default 4. */
export function totalCapFrom(env: Env): number {
  const raw = env.get("MAX_CONCURRENT_RUNS");
  if (raw === undefined || raw.trim() === "") return TOTAL_CAP_DEFAULT;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 1 || n > TOTAL_CAP_MAX) {
    throw new GovernorConfigError(
      "MAX_CONCURRENT_RUNS",
      null,
      `${
        JSON.stringify(raw)
      } is not a whole number in 1..${TOTAL_CAP_MAX}; unset it for the default ${TOTAL_CAP_DEFAULT}`,
    );
  }
  return n;
}

const LIMITS = {
  max_concurrent: [0, 64],
  queue_depth_max: [1, 1000],
  tokens_per_hour: [0, 1e12],
  defer_threshold: [1, 10_000],
} as const;

/**
 * Merges `raw` (a full file or a partial update) over `base`, checking every key.
 * Unknown keys are refused so a typo is never silently ignored.
 */
export function mergeGovernorConfig(
  base: GovernorConfig,
  raw: unknown,
  source: string,
): GovernorConfig {
  const obj = object(raw, source, null);
  const out: GovernorConfig = structuredClone(base);
  for (const [key, value] of Object.entries(obj)) {
    switch (key) {
      case "max_concurrent":
      case "tokens_per_hour": {
        const per = object(value, source, key);
        for (const [cls, n] of Object.entries(per)) {
          if (cls !== "api" && cls !== "scheduled") {
            throw new GovernorConfigError(
              source,
              `${key}.${cls}`,
              "unknown class; the governed classes are api and scheduled",
            );
          }
          out[key][cls] = whole(n, source, `${key}.${cls}`, LIMITS[key]);
        }
        break;
      }
      case "queue_depth_max":
      case "defer_threshold":
        out[key] = whole(value, source, key, LIMITS[key]);
        break;
      case "defer_when_interactive":
        if (typeof value !== "boolean") {
          throw new GovernorConfigError(
            source,
            key,
            `expected true or false, got ${JSON.stringify(value)}`,
          );
        }
        out.defer_when_interactive = value;
        break;
      default:
        throw new GovernorConfigError(
          source,
          key,
          "unknown lever; known levers are max_concurrent, queue_depth_max, tokens_per_hour, " +
            "defer_when_interactive, defer_threshold",
        );
    }
  }
  return out;
}

/** Reads the file; a missing file gives the defaults (nothing is written). */
export async function loadGovernorConfig(path: string): Promise<GovernorConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return structuredClone(DEFAULT_GOVERNOR_CONFIG);
    throw new GovernorConfigError(path, null, `cannot be read: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new GovernorConfigError(
      path,
      null,
      `is not valid JSON (${
        (err as Error).message
      }); fix or delete the file (defaults apply when it is absent)`,
    );
  }
  return mergeGovernorConfig(structuredClone(DEFAULT_GOVERNOR_CONFIG), raw, path);
}

export async function saveGovernorConfig(path: string, config: GovernorConfig): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(config, null, 2) + "\n", {
    createDirs: true,
    mode: PRIVATE_FILE_MODE,
    dirMode: PRIVATE_DIR_MODE,
  });
}

function object(value: unknown, source: string, field: string | null): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new GovernorConfigError(
      source,
      field,
      `expected a JSON object, got ${JSON.stringify(value)}`,
    );
  }
  return value as Record<string, unknown>;
}

function whole(
  value: unknown,
  source: string,
  field: string,
  [min, max]: readonly [number, number],
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new GovernorConfigError(
      source,
      field,
      `expected a whole number in ${min}..${max}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}
