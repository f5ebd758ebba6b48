/** An OAuth client registered with the emulator, as a Google Cloud project would have it. */
export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
  /** When given, the authorization endpoint accepts only these redirect URIs (exact match). */
  redirectUris?: string[];
}

export class OAuthClients {
  readonly #clients = new Map<string, OAuthClientConfig>();

  constructor(clients: OAuthClientConfig[]) {
    for (const client of clients) this.#clients.set(client.clientId, client);
  }

  find(clientId: string): OAuthClientConfig | undefined {
    return this.#clients.get(clientId);
  }

  /** Google matches registered redirect URIs exactly; a client without a list accepts any http(s) URI. */
  allowsRedirect(client: OAuthClientConfig, redirectUri: string): boolean {
    if (client.redirectUris && client.redirectUris.length > 0)
      return client.redirectUris.includes(redirectUri);
    try {
      const url = new URL(redirectUri);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.hash;
    } catch {
      return false;
    }
  }
}
