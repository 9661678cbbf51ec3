// A publish gate for tests that build a surface (push adapter, chat bot) by hand: the real
// scanner (secretlint's rules and the literal match) over a fixed list of "stored" secrets,
// holding into `home`'s outpost/held/.

import type { Logger } from "../../core/logger.ts";
import { PublishGate } from "../../core/publish/gate.ts";
import { SecretScanner } from "../../core/publish/secret_scan.ts";
import type { Store } from "../../core/store/store.ts";

export function testPublishGate(o: {
  store: Pick<Store, "createInboxItem" | "appendAudit">;
  home: string;
  logger: Logger;
  known?: readonly string[];
}): PublishGate {
  const known = o.known ?? [];
  return new PublishGate({
    store: o.store,
    scanner: new SecretScanner(() => Promise.resolve(known)),
    home: o.home,
    logger: o.logger,
  });
}
