// The outpost's publish gate, built on the install's real secret sources (known_secrets.ts)
// and secretlint's rules (loaded on the first scan). server/wiring.ts makes one per outpost
// and hands it to every surface: the GitHub comment poster, the chat adapter, the push
// adapter.

import type { Env } from "../ports.ts";
import type { Logger } from "../logger.ts";
import type { VapidKeyFile } from "../push/vapid.ts";
import type { TriggerSecrets } from "../recipes/trigger_secret.ts";
import type { Store } from "../store/store.ts";
import { PublishGate } from "./gate.ts";
import { collectKnownSecrets } from "./known_secrets.ts";
import { SecretScanner } from "./secret_scan.ts";

export interface OutpostGateOptions {
  home: string;
  env: Env;
  store: Store;
  logger: Logger;
  triggerSecrets: TriggerSecrets;
  /** The push lane's key file (its private key is a known secret when it loads). */
  pushKeys: VapidKeyFile | null;
  csrfToken: () => string;
}

export function createOutpostGate(o: OutpostGateOptions): PublishGate {
  const scanner = new SecretScanner(() =>
    collectKnownSecrets({
      home: o.home,
      env: o.env,
      triggers: o.store.triggers,
      triggerSecrets: o.triggerSecrets,
      vapidPrivateKey: () => {
        const state = o.pushKeys?.load();
        return state?.state === "ok" ? state.keys.privateKey : null;
      },
      csrfToken: o.csrfToken,
    })
  );
  return new PublishGate({
    store: o.store,
    scanner,
    home: o.home,
    logger: o.logger,
  });
}
