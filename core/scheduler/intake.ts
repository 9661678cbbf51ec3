// Which runs were started by untrusted input (issue 37): a webhook delivery (an issue
// anyone can open), a chat `ask` (the ranger answers questions about the outpost, whatever
// the question says) or a recipe marked `untrusted_intake` (its prompt carries text from
// outside). Their jobs carry `meta.untrusted_intake = true`, stamped by the door that made
// them (webhook.ts, the chat command runner, the recipe service); a trigger-made job counts
// even without the stamp. Such a run's child gets `--memory-scope workspace`
// (headless_command.ts), so its memory tool reaches only its own workspace's memory.
//
// The stamp can only narrow what a run may do: a request that sets it on its own job (the
// machine door's one-shot meta) restricts itself, and no request can clear it on a job a
// webhook or a recipe made (a job's meta is fixed for its lifetime).

import type { Job } from "../store/store.ts";

export const UNTRUSTED_INTAKE = "untrusted_intake";

export function isUntrustedIntake(job: Pick<Job, "meta">): boolean {
  return job.meta[UNTRUSTED_INTAKE] === true || typeof job.meta.trigger_id === "number";
}
