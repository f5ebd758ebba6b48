/** Who a request acts for, however it was authenticated: all a tool may know (CONVENTIONS). */
export interface AuthInfo {
  userId: string;
  scopes: ReadonlySet<string>;
  /** `dashboard`: the person on the dashboard, through web (ChangeUndoService: an undo only). */
  credential: 'access_token' | 'api_key' | 'dashboard';
  /** The OAuth client, for access tokens. */
  clientId?: string;
  /** The API key's id, for API keys. */
  apiKeyId?: string;
  /**
   * The toolsets the credential enables (docs/design.md §11, "Toolsets"); undefined for every set
   * (a key created before toolsets, an access token without the claim).
   */
  toolsets?: readonly string[];
  /**
   * For a DPoP-bound access token, the thumbprint of the key it is bound to (its `cnf.jkt`); the
   * request was authenticated only with a proof signed by that key (docs/design.md §7.1).
   */
  dpopJkt?: string;
}
