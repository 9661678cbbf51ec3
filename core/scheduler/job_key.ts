// Which stored provider key a job's runs send, and where (issue 37 §1). A stored key goes only
// to the origin it was stored for (core/settings/key_binding.ts), so a job whose base_url is
// another origin runs with no stored key unless it names, in provider_preset, the preset whose
// key was stored for that origin. Every door that makes or changes a job calls
// checkNamedPreset (through core/scheduler/jobs.ts and submitOneShot); the dashboard and the
// machine door answer jobKeyNote beside the job, so the operator sees it before the first run.
//
// Both resolve the settings exactly as the child will: the operator's environment without the
// model key variables (a child never gets them, headless_command.ts), the job's base_url,
// model and preset as AGENT_* variables, and the settings files as they are now.

import type { Env } from "../ports.ts";
import { endpointOrigin, presetKeyOrigins } from "../settings/key_binding.ts";
import { resolveKey } from "../settings/keys.ts";
import { PUBLIC_BASE_URLS } from "../settings/knobs.ts";
import { resolveSettings } from "../settings/resolve.ts";
import type { Settings } from "../settings/types.ts";
import { errorText } from "../logger.ts";
import type { Job } from "../store/store.ts";
import { JobValidationError } from "./job_input.ts";
import { childEndpointEnv } from "./headless_command.ts";

export type JobEndpoint = Pick<Job, "base_url" | "model" | "provider_preset" | "workdir">;

export interface JobKeyContext {
  env: Env;
  home: string;
}

/** What the API answers beside a job: where its runs go and which stored key goes there. */
export interface JobKeyNote {
  /** The origin the job's model requests go to; null when the settings cannot be read. */
  endpoint: string | null;
  /** The stored key runs send ("provider_keys[gpu] in …", "api_key in …"); null: none. */
  stored_key: string | null;
  /** One line for the form and the API. */
  note: string;
}

function childSettings(ctx: JobKeyContext, job: JobEndpoint): { settings: Settings; env: Env } {
  const values = childEndpointEnv(ctx.env, job);
  const env: Env = {
    get: (name) => values[name],
    toObject: () => ({ ...values }),
  };
  const settings = resolveSettings({
    flags: {},
    env,
    cwd: job.workdir || ctx.home,
    home: ctx.home,
  });
  return { settings, env };
}

/**
 * Refuses (JobValidationError on provider_preset) a named preset that does not exist, or whose
 * key was stored for another origin than the job's base_url: its key would never be sent.
 */
export function checkNamedPreset(ctx: JobKeyContext, job: JobEndpoint): void {
  if (!job.provider_preset) return;
  let settings: Settings;
  try {
    settings = childSettings(ctx, job).settings;
  } catch (err) {
    throw new JobValidationError("provider_preset", errorText(err));
  }
  const target = endpointOrigin(settings.base_url ?? PUBLIC_BASE_URLS[settings.provider]);
  const origins = presetKeyOrigins(settings, job.provider_preset);
  if (target === null || !origins.includes(target)) {
    throw new JobValidationError(
      "provider_preset",
      `the key of preset ${job.provider_preset} is stored for ${origins.join(", ")}, and this ` +
        `job's base_url goes to ${target ?? job.base_url}: a stored key is sent only to the ` +
        "origin it was stored for. Leave provider_preset empty, or name a preset stored for " +
        "that origin",
    );
  }
}

/** Which stored key the job's runs send, and where; an unreadable settings file is said so. */
export function jobKeyNote(ctx: JobKeyContext, job: JobEndpoint): JobKeyNote {
  let settings: Settings;
  let env: Env;
  try {
    ({ settings, env } = childSettings(ctx, job));
  } catch (err) {
    return {
      endpoint: null,
      stored_key: null,
      note: `cannot tell which stored key runs use: ${errorText(err)}`,
    };
  }
  const endpoint = endpointOrigin(settings.base_url ?? PUBLIC_BASE_URLS[settings.provider]);
  if (settings.sources.base_url?.kind === "project") {
    // resolveEndpoint sends no stored or environment key to a project file's base_url.
    return {
      endpoint,
      stored_key: null,
      note: `runs send no stored key to ${endpoint}: base_url comes from ` +
        `${settings.sources.base_url.detail ?? "the project settings file"}`,
    };
  }
  const key = resolveKey(settings, env);
  if (key.key !== undefined) {
    return {
      endpoint,
      stored_key: key.from ?? null,
      note: `runs send the key from ${key.from} to ${endpoint}`,
    };
  }
  const held = key.searched.filter((label) => label.includes("; not sent to "));
  return {
    endpoint,
    stored_key: null,
    note: held.length > 0
      ? `runs send no stored key to ${endpoint}: ${held.join("; ")}. To use a key there, ` +
        "store it under a [[providers]] row with that base_url and name that preset " +
        "(provider_preset)"
      : `runs find no stored key for ${endpoint} (searched ${key.searched.join(", ")})`,
  };
}
