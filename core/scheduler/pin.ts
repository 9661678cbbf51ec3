// The provider pin: a job stores the base_url and model it was made with; before a queued
// run starts, the model server is asked what it serves. A positive mismatch skips the run
// (skipped_drift); no answer is not a mismatch.

import type { Fetch } from "../ports.ts";

/** Served model ids at `baseUrl`, or null when the server gives no usable answer. */
export type PinResolver = (baseUrl: string) => Promise<string[] | null>;

export type PinCheck =
  | { drift: false; served: string[] | null }
  | { drift: true; served: string[]; reason: string };

/** The `default` sentinel means "whatever is served", so it matches anything. */
export async function checkPin(
  resolver: PinResolver | null,
  baseUrl: string,
  model: string,
): Promise<PinCheck> {
  if (!resolver || baseUrl === "" || model === "" || model === "default") {
    return { drift: false, served: null };
  }
  let served: string[] | null;
  try {
    served = await resolver(baseUrl);
  } catch {
    served = null;
  }
  if (!served || served.length === 0 || served.includes(model)) return { drift: false, served };
  const list = served.slice(0, 5).join(", ") + (served.length > 5 ? ", …" : "");
  return {
    drift: true,
    served,
    reason: `pinned model ${model} is not served at ${baseUrl} (serving: ${list}); ` +
      `repin the job to accept the new model`,
  };
}

/** GET <base_url>/models (the base normally ends in /v1), reading `data[].id`. */
export function httpPinResolver(options: { fetch: Fetch; timeoutMs?: number }): PinResolver {
  return async (baseUrl) => {
    const url = baseUrl.replace(/\/+$/, "");
    const models = /\/v1$/.test(url) ? `${url}/models` : `${url}/v1/models`;
    try {
      const res = await options.fetch(models, {
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      });
      if (!res.ok) {
        await res.body?.cancel();
        return null;
      }
      const body = await res.json() as { data?: unknown };
      if (!Array.isArray(body.data)) return null;
      const ids = body.data
        .map((m) => (typeof m === "object" && m !== null ? (m as { id?: unknown }).id : undefined))
        .filter((id): id is string => typeof id === "string");
      return ids.length > 0 ? ids : null;
    } catch {
      return null;
    }
  };
}
