// The log adapter: every event as one JSON line, to a file or to the logger. It is always
// registered, so a deployment with no chat or push still keeps a record of what was sent.

import { dirname } from "node:path";
import type { Logger } from "../logger.ts";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../private_files.ts";
import type { DeliveryAdapter, DeliveryEvent } from "./types.ts";

export type LogAdapterTarget = { path: string } | { logger: Logger };

export function createLogAdapter(target: LogAdapterTarget): DeliveryAdapter {
  if ("logger" in target) {
    const logger = target.logger;
    return {
      name: "log",
      send(event: DeliveryEvent) {
        logger.log(event.priority === "high" ? "warn" : "info", `delivery ${event.kind}`, {
          event,
        });
        return Promise.resolve();
      },
    };
  }
  let dirReady = false;
  return {
    name: "log",
    async send(event: DeliveryEvent) {
      if (!dirReady) {
        await makePrivateDir(dirname(target.path));
        dirReady = true;
      }
      // Owner-only: the events name jobs, runs and questions (core/private_files.ts).
      await Deno.writeTextFile(target.path, JSON.stringify(event) + "\n", {
        append: true,
        mode: PRIVATE_FILE_MODE,
      });
    },
  };
}
