// The top bar's live state: messenger pill, push badge and the open-inbox counter
// (re-fetched from /partials/status).

import type { FC } from "hono/jsx";
import type { MessengerStatus, PushStatus } from "../deps.ts";
import { Pill } from "./badges.tsx";

export interface StatusBarData {
  messenger: MessengerStatus;
  push: PushStatus;
  openInbox: number;
}

function messengerDetail(m: MessengerStatus): string {
  if (m.state === "dormant") return `Messenger dormant: missing ${m.missing.join(", ")}`;
  if (m.state === "error") {
    const retry = m.next_retry_at ? `; next retry ${m.next_retry_at.slice(11, 19)} UTC` : "";
    return `${m.detail ?? "sync failing"}${retry}`;
  }
  return `${m.allowlist_size} allowlisted ${m.allowlist_size === 1 ? "operator" : "operators"}`;
}

/**
 * The messenger pill (spec 3.3): dormant is a quiet grey dot whose tooltip names the
 * missing variables; error is amber with the last error and the next retry; ok is green.
 */
const MessengerPill: FC<{ m: MessengerStatus }> = ({ m }) =>
  m.state === "dormant"
    ? (
      <span
        class="pill pill-dormant pill-quiet"
        id="messenger-pill"
        data-state="dormant"
        title={messengerDetail(m)}
        tabindex={0}
      >
        <span class="dot" aria-hidden="true"></span>
        {/* Named by text, not aria-label: a plain span's aria-label is not announced. */}
        <span class="sr-only">{messengerDetail(m)}</span>
      </span>
    )
    : (
      <Pill
        label="Messenger"
        state={m.state}
        detail={messengerDetail(m)}
        extra={m.state === "error" ? messengerDetail(m) : undefined}
        id="messenger-pill"
      />
    );

function pushDetail(p: PushStatus): string {
  if (p.state === "dormant") return `Missing ${p.missing.join(", ") || "VAPID key"}`;
  if (p.state === "error") return p.detail ?? "the VAPID key file cannot be used";
  return `${p.devices} ${p.devices === 1 ? "device" : "devices"} subscribed`;
}

export const StatusBar: FC<{ data: StatusBarData }> = ({ data }) => (
  <div class="status-bar">
    <a
      href="/#card-inbox"
      class={data.openInbox > 0 ? "pill pill-attn" : "pill"}
      id="inbox-counter"
    >
      Inbox <span class="num" data-open-inbox={data.openInbox}>{data.openInbox}</span>
    </a>
    <MessengerPill m={data.messenger} />
    <span
      class={`pill pill-${data.push.state}`}
      id="push-badge"
      data-state={data.push.state}
      data-devices={data.push.devices}
      title={pushDetail(data.push)}
    >
      <span class="dot" aria-hidden="true"></span>
      Push: {data.push.state === "ok"
        ? `${data.push.devices} ${data.push.devices === 1 ? "device" : "devices"}`
        : data.push.state}
    </span>
  </div>
);
