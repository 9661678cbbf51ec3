// `agent sessions`: saved sessions, newest first, with how each ended.

import { join } from "../core/path.ts";
import { agentHome } from "../core/settings/project.ts";
import { processEnv } from "../core/ports.ts";
import { loadSession } from "../core/agent/journal.ts";

export async function listSessions(out: (t: string) => void): Promise<number> {
  const dir = join(agentHome(processEnv), "sessions");
  const ids: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(".jsonl")) ids.push(e.name.slice(0, -6));
    }
  } catch (err) {
    // Only a missing folder means "none yet"; a refused read is an error, not an empty list.
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    out(`no sessions yet (${dir})\n`);
    return 0;
  }
  ids.sort().reverse();
  for (const id of ids.slice(0, 50)) {
    try {
      const s = await loadSession(dir, id);
      const ended = s.lastOutcome?.done_reason ?? "in progress";
      out(`${id}  ${ended.padEnd(13)} ${s.meta.workdir}\n`);
    } catch {
      out(`${id}  (unreadable)\n`);
    }
  }
  return 0;
}
