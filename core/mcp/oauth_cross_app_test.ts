import assert from "node:assert/strict";
import { CrossAppAccessProvider, idJagFrom } from "./oauth_cross_app.ts";
import type { HttpServer } from "../settings/mcp_servers.ts";

Deno.test("a token-exchange answer that is not an ID-JAG is a clear error, never a grant", () => {
  const jag = "urn:ietf:params:oauth:token-type:id-jag";
  assert.equal(
    idJagFrom(JSON.stringify({ access_token: "a.b.c", issued_token_type: jag })),
    "a.b.c",
  );
  assert.throws(() => idJagFrom("<html>"), /token exchange answer is not JSON/);
  assert.throws(
    () => idJagFrom(JSON.stringify({ access_token: "t", issued_token_type: "urn:x:access_token" })),
    /did not issue an ID-JAG \(issued_token_type "urn:x:access_token"\)/,
  );
  assert.throws(
    () => idJagFrom(JSON.stringify({ issued_token_type: jag })),
    /did not issue an ID-JAG/,
  );
});

Deno.test("the grant is never asked for before the authorization server is known", async () => {
  let asked = false;
  const provider = new CrossAppAccessProvider(
    { url: "https://mcp.example.com/mcp" } as HttpServer,
    {
      clientId: "agent",
      idpTokenEndpoint: "https://idp.example.com/token",
      idpClientId: "agent-at-idp",
      idToken: () => Promise.resolve("id-token"),
      fetch: () => {
        asked = true;
        return Promise.reject(new Error("no request expected"));
      },
    },
  );
  await assert.rejects(provider.prepareTokenRequest(), /authorization server was not discovered/);
  assert.equal(asked, false);
});
