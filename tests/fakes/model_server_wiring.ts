// Small helpers to point a wire at the fake model server in tests.

import type { WireKind } from "../../core/settings/types.ts";
import type { Endpoint, WireOptions } from "../../core/wires/types.ts";
import type { FakeModelServer } from "./model_server.ts";

/** An Endpoint for the fake on the given wire (bearer auth, no key unless given). */
export function fakeEndpoint(
  fake: Pick<FakeModelServer, "url">,
  provider: WireKind,
  extra: Partial<Endpoint> = {},
): Endpoint {
  return { provider, base_url: fake.url, auth_style: "bearer", ...extra };
}

/** WireOptions with the defaults of spec 2.2 (adaptive thinking, strict tools off). */
export function defaultWireOptions(extra: Partial<WireOptions> = {}): WireOptions {
  return { thinking_type: "adaptive", strict_tools: false, ...extra };
}
