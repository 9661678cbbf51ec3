// The /audit table: when (to the second, local time with UTC on hover), the action, the door it
// came through (its channel: dashboard, chat, push, machine, webhook, cli, outpost), who (a
// named actor: the signed-in user of the trusted header, a machine-door token's name, a chat
// sender, or a part of the outpost), the target as a link to its page, and the detail, with
// the operator's answer text on the rows that answered an inbox item.

import type { FC } from "hono/jsx";
import type { AuditRow } from "../../core/store/store.ts";
import { utcSeconds } from "./format.ts";

/** A row's target resolved to its page, and the answer an answering row gave. */
export interface AuditExtras {
  /** href of the target's page by audit row id (targets without a page are absent). */
  links: Map<number, string>;
  /** The answer text by audit row id, for rows that answered an inbox item. */
  answers: Map<number, string>;
}

/** Parts of the outpost that act on their own (audit rows they write name them so). */
const SYSTEM_ACTORS = new Set(["scheduler", "outpost", "push-service"]);

/**
 * Who an actor string names, as a reader would say it, and the kind (for the hover text):
 * "user:ann" is the user the trusted SSO header named (server/http/request.ts humanActor),
 * "token:3:ci" the machine-door token "ci", "@ann:example.org" a chat sender, "dashboard" the
 * dashboard with no signed-in user (no trusted header configured), "webhook:github" and
 * "recipe:github" the code host's deliveries.
 */
export function actorLabel(actor: string): { text: string; kind: string } {
  if (actor.startsWith("user:")) {
    return { text: actor.slice(5), kind: "signed-in user (trusted header)" };
  }
  const token = /^token:(\d+):(.*)$/.exec(actor);
  if (token) return { text: `token “${token[2]}” (#${token[1]})`, kind: "machine-door token" };
  if (actor.startsWith("@")) return { text: actor, kind: "chat sender" };
  if (actor === "dashboard") {
    return {
      text: "dashboard",
      kind: "dashboard, no signed-in user (set AGENT_OUTPOST_TRUSTED_USER_HEADER behind SSO)",
    };
  }
  if (/^(webhook|recipe):/.test(actor)) return { text: actor, kind: "code host delivery" };
  if (SYSTEM_ACTORS.has(actor)) return { text: actor, kind: "the outpost itself" };
  return { text: actor, kind: "as recorded" };
}

/** "2026-03-02 09:00:15 UTC": audit rows keep their seconds. */
function secondsTime(iso: string): string {
  const text = utcSeconds(iso);
  return text === null ? iso : `${text} UTC`;
}

export const AuditTable: FC<{ rows: AuditRow[]; extras: AuditExtras }> = ({ rows, extras }) => (
  <div class="table-scroll" tabindex={0} role="region" aria-label="Audit rows, scrollable">
    <table class="history" aria-label="Audit rows">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Action</th>
          <th scope="col">Channel</th>
          <th scope="col">Actor</th>
          <th scope="col">Target</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const who = actorLabel(r.actor);
          const href = extras.links.get(r.id);
          const answer = extras.answers.get(r.id);
          return (
            <tr data-audit-id={r.id} data-action={r.action} data-channel={r.channel}>
              <td>
                <time datetime={r.at}>{secondsTime(r.at)}</time>
              </td>
              <td class="mono">{r.action}</td>
              <td data-col="channel">{r.channel}</td>
              <td data-col="actor" title={who.kind}>{who.text}</td>
              <td class="mono clip" data-col="target">
                {href ? <a href={href}>{r.target}</a> : r.target}
              </td>
              <td class="detail">
                {r.detail}
                {answer !== undefined
                  ? (
                    <span class="audit-answer" data-col="answer">
                      answer: <q>{answer}</q>
                    </span>
                  )
                  : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  </div>
);
