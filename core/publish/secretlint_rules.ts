// The maintained rule set of the secret scanner: secretlint's core with its recommended
// preset (AWS, GCP, Azure, GitHub, GitLab, Slack, npm, OpenAI, Anthropic, private keys, basic
// auth in URLs, database connection strings, …), run in-process. Only secret_scan.ts loads
// this module, through a dynamic import on the first scan, so neither program's start-up pays
// for the rules (about 50 ms to load).

import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { Finding } from "./finding.ts";

const PRESET_ID = "@secretlint/secretlint-rule-preset-recommend";
const RULE_PREFIX = "@secretlint/secretlint-rule-";

const CONFIG = {
  rules: [{
    id: PRESET_ID,
    rule: recommended,
    // AWS access key ids (AKIA…) are off in the preset by default: a published one is still
    // half a credential and names the account, so it is held too.
    rules: [{ id: `${RULE_PREFIX}aws`, options: { enableIDScanRule: true } }],
  }],
};

/** The findings of the recommended preset in `text`: rule name and character range. */
export async function secretlintFindings(text: string): Promise<Finding[]> {
  const result = await lintSource({
    source: { filePath: "publication.txt", content: text, contentType: "text" },
    options: { config: CONFIG, maskSecrets: true },
  });
  return result.messages.map((m) => ({
    rule: m.ruleId.startsWith(RULE_PREFIX) ? m.ruleId.slice(RULE_PREFIX.length) : m.ruleId,
    start: m.range[0],
    end: m.range[1],
  }));
}
