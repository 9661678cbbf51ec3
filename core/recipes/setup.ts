// Per-source setup instructions returned once, with the secret, when a trigger recipe is
// enabled: what to paste where on the code host so its deliveries reach the webhook route.

import type { RecipeTrigger } from "../store/triggers.ts";

export interface SetupInstructions {
  source: "github";
  payload_url: string;
  content_type: "application/json";
  events: string[];
  steps: string[];
  /** The same hook made with the GitHub CLI (the secret is in it: run it, do not save it). */
  cli: string;
}

/** The path of a trigger's webhook on the outpost (server/routes/webhooks.ts). */
export function webhookPath(triggerId: number): string {
  return `/hooks/github/${triggerId}`;
}

export function githubSetup(
  baseUrl: string,
  trigger: Pick<RecipeTrigger, "id" | "repo">,
  secret: string,
): SetupInstructions {
  const url = `${baseUrl.replace(/\/+$/, "")}${webhookPath(trigger.id)}`;
  return {
    source: "github",
    payload_url: url,
    content_type: "application/json",
    events: ["issues"],
    steps: [
      `Open https://github.com/${trigger.repo}/settings/hooks/new (repository Settings → Webhooks → Add webhook).`,
      `Payload URL: ${url}`,
      "Content type: application/json.",
      "Secret: the secret shown with this answer. It is shown once; the outpost keeps no copy.",
      "SSL verification: enabled.",
      'Which events: "Let me select individual events", then tick Issues only.',
      "Active: ticked. Add webhook. GitHub's ping delivery should answer 200.",
      "Set AGENT_OUTPOST_GITHUB_TOKEN on the outpost (a token that may comment on issues) so the triage comment can be posted.",
      "The webhook path must reach the outpost without SSO (docs/deployment.md): the signature authenticates it.",
    ],
    cli: `gh api repos/${trigger.repo}/hooks -f name=web -F active=true -f 'events[]=issues' ` +
      `-f 'config[url]=${url}' -f 'config[content_type]=json' -f 'config[secret]=${secret}'`,
  };
}
