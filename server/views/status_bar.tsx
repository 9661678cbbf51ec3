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
  if (m.state === "dormant") return `Missing ${m.missing.join(", ")}`;
  if (m.state === "error") return m.detail ?? "sync failing; retrying with backoff";
  return `${m.allowlist_size} allowlisted ${m.allowlist_size === 1 ? "operator" : "operators"}`;
}

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
    <Pill
      label="Messenger"
      state={data.messenger.state}
      detail={messengerDetail(data.messenger)}
      extra={data.messenger.state === "ok" ? undefined : messengerDetail(data.messenger)}
      id="messenger-pill"
    />
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
