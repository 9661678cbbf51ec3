// Enterprise-managed OAuth for an HTTP MCP server ("cross-app access", SEP-990; the grant the
// MCP conformance suite's auth/cross-app-access-complete-flow checks): no user signs in to the
// MCP server. The user's ID token from the enterprise identity provider (IdP) is exchanged
// there for an ID-JAG, an identity assertion authorization grant for the MCP server's
// authorization server (RFC 8693 token exchange); that grant is then presented to the
// authorization server as a JWT bearer grant (RFC 7523 section 2.1), with this client's own
// credentials, for the access token.
//
// Hand-written because the MCP SDK (1.32.2) has no client helper for either request (its only
// jwt-bearer is the private_key_jwt client assertion). Everything around them stays the SDK's:
// discovery of the authorization server, the token request itself (client authentication,
// resource indicator, the token response's checks) and retrying with a fresh grant when a token
// is refused. This module is the SDK's OAuthClientProvider for it: the discovery the SDK saves
// gives the audience and resource of the exchange, and prepareTokenRequest() makes the exchange
// and answers with the jwt-bearer parameters.

import type { Fetch } from "../ports.ts";
import type { HttpServer } from "../settings/mcp_servers.ts";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

export interface CrossAppOptions {
  /** This client at the MCP server's authorization server, and its secret (mcp_keys). */
  clientId: string;
  clientSecret?: string;
  /** The IdP's token endpoint, this client's id there and its secret there, if any. */
  idpTokenEndpoint: string;
  idpClientId: string;
  idpClientSecret?: string;
  /** Reads the user's current ID token from the IdP (read at each exchange: it expires). */
  idToken: () => Promise<string>;
  fetch: Fetch;
}

/** What the SDK learnt by discovery (its OAuthDiscoveryState, the fields used here). */
interface Discovery {
  authorizationServerUrl: string;
  resourceMetadata?: { resource?: string };
  authorizationServerMetadata?: { issuer?: string };
}

/** The SDK's OAuthClientProvider for the cross-app access grant of one server. */
export class CrossAppAccessProvider {
  readonly #server: HttpServer;
  readonly #options: CrossAppOptions;
  #discovery: Discovery | undefined;
  #tokens: Record<string, unknown> | undefined;

  constructor(server: HttpServer, options: CrossAppOptions) {
    this.#server = server;
    this.#options = options;
  }

  /** No redirect: the SDK takes this as a non-interactive grant and calls prepareTokenRequest. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata() {
    return {
      client_name: "agent",
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: this.#options.clientSecret ? "client_secret_basic" : "none",
    };
  }

  clientInformation() {
    return {
      client_id: this.#options.clientId,
      ...(this.#options.clientSecret ? { client_secret: this.#options.clientSecret } : {}),
    };
  }

  saveClientInformation(): void {
    // Configured by hand (oauth_client_id): never replaced by a registration.
  }

  tokens() {
    return this.#tokens;
  }

  saveTokens(tokens: Record<string, unknown>): void {
    this.#tokens = tokens;
  }

  saveDiscoveryState(state: Discovery): void {
    this.#discovery = state;
  }

  redirectToAuthorization(): void {
    throw new Error("the cross-app access grant has no sign-in page");
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error("the cross-app access grant has no PKCE code verifier");
  }

  /** The ID-JAG from the IdP, sent to the authorization server as a JWT bearer grant. */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const assertion = await this.#exchangeIdToken();
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion });
    if (scope) params.set("scope", scope);
    return params;
  }

  /** RFC 8693 at the IdP: the user's ID token for an ID-JAG naming this server's AS. */
  async #exchangeIdToken(): Promise<string> {
    const discovery = this.#discovery;
    if (!discovery) throw new Error("the authorization server was not discovered before the grant");
    const audience = discovery.authorizationServerMetadata?.issuer ??
      discovery.authorizationServerUrl;
    const resource = discovery.resourceMetadata?.resource ?? this.#server.url;
    const options = this.#options;
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      subject_token: (await options.idToken()).trim(),
      subject_token_type: ID_TOKEN,
      audience,
      resource,
    });
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (options.idpClientSecret) {
      const pair = `${encodeURIComponent(options.idpClientId)}:${
        encodeURIComponent(options.idpClientSecret)
      }`;
      headers.authorization = `Basic ${btoa(pair)}`;
    } else {
      body.set("client_id", options.idpClientId);
    }
    const response = await options.fetch(options.idpTokenEndpoint, {
      method: "POST",
      headers,
      body,
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(
        `the identity provider refused the token exchange (HTTP ${response.status}): ` +
          text.slice(0, 300),
      );
    }
    return idJagFrom(text);
  }
}

/** The ID-JAG out of a token-exchange response; anything else is a clear error. */
export function idJagFrom(text: string): string {
  let answer: { access_token?: unknown; issued_token_type?: unknown };
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(
      `the identity provider's token exchange answer is not JSON: ${text.slice(0, 200)}`,
    );
  }
  if (answer.issued_token_type !== ID_JAG || typeof answer.access_token !== "string") {
    throw new Error(
      `the identity provider did not issue an ID-JAG (issued_token_type ` +
        `${JSON.stringify(answer.issued_token_type)})`,
    );
  }
  return answer.access_token;
}
