// OAuth 2.1 for Streamable HTTP MCP servers, through the SDK's own client auth
// (@modelcontextprotocol/sdk/client/auth.js: protected-resource and authorization-server
// discovery, dynamic client registration, authorization code with PKCE, refresh, scope step-up).
// This module is the SDK's OAuthClientProvider for one server: where its client registration
// and tokens are kept (<home>/mcp/oauth/<server>.json, 0600 in a 0700 directory, like the
// provider keys: never in a project file, never in reports or logs) and what happens when the
// server wants the user to sign in: `agent mcp login NAME` opens the browser on a loopback
// redirect (core/mcp/oauth_login.ts); a run cannot, so its start fails with one line naming
// that command. A stored refresh token is used by the SDK whenever the access token is refused.

import { join } from "../path.ts";
import { writeFileAtomic } from "../atomic_write.ts";
import type { HttpServer } from "../settings/mcp_servers.ts";

/** What is kept for one server (the SDK's own shapes, opaque here). */
interface OAuthRecord {
  /** The server's URL when signed in: another URL starts over. */
  url: string;
  client?: Record<string, unknown>;
  tokens?: Record<string, unknown>;
  /** When the tokens were saved (for `agent mcp list`). */
  saved_at?: string;
  /** The scope a run was refused for (a step-up): the next login asks for it. */
  wanted_scope?: string;
}

/** A start that needs the user to sign in first (a run cannot open a browser). */
export class LoginNeededError extends Error {
  override name = "LoginNeededError";
}

export function oauthPath(home: string, server: string): string {
  return join(home, "mcp", "oauth", `${server}.json`);
}

export async function readOAuth(home: string, server: HttpServer): Promise<OAuthRecord | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(oauthPath(home, server.name));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  const record = JSON.parse(text) as OAuthRecord;
  return record.url === server.url ? record : null;
}

async function writeOAuth(home: string, server: string, record: OAuthRecord): Promise<void> {
  await writeFileAtomic(oauthPath(home, server), JSON.stringify(record, null, 2) + "\n", {
    mode: 0o600,
    createDirs: true,
    dirMode: 0o700,
  });
}

/** Forgets a server's registration and tokens (`agent mcp logout`); false when none were kept. */
export async function forgetOAuth(home: string, server: string): Promise<boolean> {
  try {
    await Deno.remove(oauthPath(home, server));
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

export interface ProviderOptions {
  /** The loopback redirect of a login; absent in a run (which cannot take a redirect). */
  redirectUrl?: string;
  /** Sends the user to sign in (a login); absent: LoginNeededError. */
  onRedirect?: (url: URL) => void | Promise<void>;
  /** A client registered by hand with the authorization server (no dynamic registration). */
  preregistered?: { client_id: string; client_secret?: string };
  /** An HTTPS URL of this client's metadata document, used as its client_id where supported. */
  clientMetadataUrl?: string;
}

/** The SDK's OAuthClientProvider for one server, on the store above. */
export class StoredOAuthProvider {
  readonly #home: string;
  readonly #server: HttpServer;
  readonly #options: ProviderOptions;
  #verifier = "";
  #state = "";
  readonly clientMetadataUrl: string | undefined;

  /** `secret`: the mcp_keys entry named like the server's oauth_client_id, if any. */
  constructor(home: string, server: HttpServer, options: ProviderOptions = {}, secret?: string) {
    this.#home = home;
    this.#server = server;
    const preregistered = options.preregistered ??
      (server.oauth_client_id
        ? { client_id: server.oauth_client_id, ...(secret ? { client_secret: secret } : {}) }
        : undefined);
    this.#options = { ...options, ...(preregistered ? { preregistered } : {}) };
    this.clientMetadataUrl = options.clientMetadataUrl ?? server.oauth_client_metadata_url;
  }

  get redirectUrl(): string {
    return this.#options.redirectUrl ?? "http://127.0.0.1/callback";
  }

  get clientMetadata() {
    return {
      client_name: "agent",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  }

  /** The state sent with the authorization request; the login checks the redirect carries it. */
  state(): string {
    this.#state ||= crypto.randomUUID();
    return this.#state;
  }

  get expectedState(): string {
    return this.#state;
  }

  async clientInformation(): Promise<Record<string, unknown> | undefined> {
    const client = this.#options.preregistered ?? (await this.#record()).client;
    // A run never registers a client (its redirect could not be taken): it asks for a login.
    if (!client && !this.#options.onRedirect) {
      await this.redirectToAuthorization(new URL(this.redirectUrl));
    }
    return client;
  }

  async saveClientInformation(client: Record<string, unknown>): Promise<void> {
    await this.#update({ client });
  }

  async tokens(): Promise<Record<string, unknown> | undefined> {
    return (await this.#record()).tokens;
  }

  async saveTokens(tokens: Record<string, unknown>): Promise<void> {
    await this.#update({ tokens, saved_at: new Date().toISOString() });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.#options.onRedirect) {
      // A run cannot send the user anywhere; the next login asks for what was wanted here.
      // Only beside a sign-in kept for this very URL: nothing else is ever overwritten.
      const scope = url.searchParams.get("scope");
      const kept = await readOAuth(this.#home, this.#server);
      if (scope && kept) {
        await writeOAuth(this.#home, this.#server.name, { ...kept, wanted_scope: scope });
      }
      throw new LoginNeededError(
        `MCP server ${this.#server.name} needs you to sign in: run \`agent mcp login ` +
          `${this.#server.name}\``,
      );
    }
    await this.#options.onRedirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no sign-in is in progress (no PKCE code verifier)");
    return this.#verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "verifier" || scope === "discovery") {
      if (scope === "verifier") this.#verifier = "";
      return;
    }
    const record = await this.#record();
    if (scope === "all" || scope === "client") delete record.client;
    if (scope === "all" || scope === "tokens") delete record.tokens;
    await writeOAuth(this.#home, this.#server.name, record);
  }

  /** The scope a run was refused for since the last login, if any. */
  async wantedScope(): Promise<string | undefined> {
    return (await this.#record()).wanted_scope;
  }

  /** A login's new tokens replace the old ones; the wanted scope is then had. */
  async startOver(): Promise<void> {
    const record = await this.#record();
    delete record.tokens;
    delete record.wanted_scope;
    await writeOAuth(this.#home, this.#server.name, record);
  }

  async #record(): Promise<OAuthRecord> {
    return await readOAuth(this.#home, this.#server) ?? { url: this.#server.url };
  }

  async #update(change: Partial<OAuthRecord>): Promise<void> {
    await writeOAuth(this.#home, this.#server.name, { ...await this.#record(), ...change });
  }
}
