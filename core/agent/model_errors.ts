// The sentinel model `default` (spec 4.3 rule 2) is sent verbatim; servers that do not serve
// a model of that name (LiteLLM, vLLM without the alias) answer 400 "Invalid model name".
// This turns that answer into one line naming the setting and the models the server lists.

import { isUnknownModel } from "../wires/errors.ts";
import { DEFAULT_MODEL_SENTINEL } from "../wires/probe.ts";
import type { Wire } from "../wires/types.ts";
import { errorText } from "../logger.ts";

/** The explained error for a refused `default`, or null when `err` is something else. */
export async function explainUnknownModel(
  err: unknown,
  model: string,
  wire: Wire,
  signal?: AbortSignal,
): Promise<string | null> {
  if (model !== DEFAULT_MODEL_SENTINEL || !isUnknownModel(err)) return null;
  // listModels() is documented to answer null for any trouble (the probe's contract).
  const served = await wire.listModels(signal);
  const head = `the server does not accept the model "${DEFAULT_MODEL_SENTINEL}"`;
  if (served && served.length > 0) {
    return `${head}; set AGENT_MODEL to one of: ${served.map((m) => m.id).join(", ")}`;
  }
  return `${head}; set AGENT_MODEL to a model it serves (${errorText(err)})`;
}
