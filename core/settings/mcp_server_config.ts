// The shape of one configured MCP server, as the settings parser (mcp_servers.ts) produces it
// and the resolved Settings carry it. Types only, kept apart so types.ts can name them without
// importing the parser (which reaches the knob table, which names Settings).

export interface CommonServer {
  name: string;
  enabled: boolean;
  startup_timeout_s: number;
  tool_timeout_s: number;
  /** Only these tools are offered (absent: all). */
  enabled_tools?: readonly string[];
  /** These tools are never offered. */
  disabled_tools?: readonly string[];
  /** Which file defined it; "project" servers need approval and never get stored keys. */
  scope: "global" | "project";
  /** The settings file it came from. */
  file: string;
}

export interface StdioServer extends CommonServer {
  transport: "stdio";
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** As written; relative paths resolve against the workdir. */
  cwd?: string;
  /** Absolute host paths bound read-only into the sandbox (where the server is installed). */
  read_paths: readonly string[];
  /**
   * Network inside the sandbox; absent: the global sandbox_network. `true` is honoured only
   * from the global file (McpManager refuses to start a project server asking for it).
   */
  network?: boolean;
}

export interface HttpServer extends CommonServer {
  transport: "http";
  url: string;
  /** Plain headers from the file (never secrets: those come from mcp_keys). */
  http_headers: Readonly<Record<string, string>>;
  /** Name of an mcp_keys entry in the global file, sent as `key_header`. */
  bearer_key?: string;
  /** Header that carries the key: Authorization (as `Bearer <key>`, the default) or another. */
  key_header: string;
  /**
   * OAuth: a client registered by hand with the server's authorization server (for one without
   * dynamic registration); its secret, if any, is the mcp_keys entry of the same name.
   */
  oauth_client_id?: string;
  /** OAuth: an https URL of this client's metadata document, used as its client_id (CIMD). */
  oauth_client_metadata_url?: string;
  /**
   * OAuth grant: "authorization_code" (the default: a user signs in), "client_credentials"
   * (a machine client: oauth_client_id with its secret in mcp_keys, or a private key file) or
   * "cross_app_access" (enterprise-managed, SEP-990: the user's ID token from the enterprise
   * identity provider is exchanged there for a grant to the server; core/mcp/oauth_cross_app.ts).
   */
  oauth_grant?: "authorization_code" | "client_credentials" | "cross_app_access";
  /** client_credentials with private_key_jwt: the PEM file of the client's key. */
  oauth_private_key_file?: string;
  /** Its signing algorithm (default ES256). */
  oauth_signing_alg?: string;
  /** cross_app_access: the identity provider's token endpoint (RFC 8693 token exchange). */
  oauth_idp_token_endpoint?: string;
  /** cross_app_access: this client's id at the identity provider (its secret, if any, in mcp_keys). */
  oauth_idp_client_id?: string;
  /** cross_app_access: the file holding the user's current ID token from the identity provider. */
  oauth_id_token_file?: string;
}

export type McpServerConfig = StdioServer | HttpServer;
