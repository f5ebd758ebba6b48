import { randomBytes } from 'node:crypto';

/** What the person agreed to at the consent page, carried by the code into the tokens. */
export interface Authorization {
  email: string;
  clientId: string;
  scopes: string[];
  redirectUri: string;
  nonce: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: 'S256' | 'plain' | undefined;
  /** `access_type=offline`: the code exchange may return a refresh token. */
  offline: boolean;
  /** `prompt=consent`: Google issues a fresh refresh token even when the grant already has one. */
  forceConsent: boolean;
  /** When the person authenticated (epoch seconds), given when the request had `max_age`. */
  authTime?: number | undefined;
}

interface AuthorizationCode extends Authorization {
  expiresAt: number;
  used: boolean;
}

export interface RefreshToken {
  token: string;
  email: string;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}

export interface AccessToken {
  token: string;
  email: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

const randomToken = (bytes: number) => randomBytes(bytes).toString('base64url');

/**
 * Codes, refresh tokens and access tokens, and the scopes each account has granted each client
 * (what `include_granted_scopes` adds back). Revoking any token revokes the account's whole grant to
 * that client, as Google does.
 */
export class GrantStore {
  readonly #codes = new Map<string, AuthorizationCode>();
  readonly #refreshTokens = new Map<string, RefreshToken>();
  readonly #accessTokens = new Map<string, AccessToken>();
  /** `${email} ${clientId}` → scopes granted so far. */
  readonly #granted = new Map<string, Set<string>>();
  readonly #accessTokenTtlMs: number;
  readonly #codeTtlMs: number;

  constructor(accessTokenTtlSeconds: number, authorizationCodeTtlSeconds: number) {
    this.#accessTokenTtlMs = accessTokenTtlSeconds * 1000;
    this.#codeTtlMs = authorizationCodeTtlSeconds * 1000;
  }

  get accessTokenTtlSeconds(): number {
    return this.#accessTokenTtlMs / 1000;
  }

  previouslyGranted(email: string, clientId: string): string[] {
    return [...(this.#granted.get(grantKey(email, clientId)) ?? [])];
  }

  issueCode(authorization: Authorization): string {
    // Google's codes start with "4/0" and are URL-safe.
    const code = `4/0${randomToken(48)}`;
    const now = Date.now();
    for (const [key, stored] of this.#codes) if (stored.expiresAt < now) this.#codes.delete(key);
    this.#codes.set(code, { ...authorization, expiresAt: now + this.#codeTtlMs, used: false });
    return code;
  }

  /** Redeems a code once; `undefined` when unknown, expired or already used. */
  redeemCode(code: string): Authorization | undefined {
    const stored = this.#codes.get(code);
    if (!stored || stored.used || stored.expiresAt < Date.now()) return undefined;
    stored.used = true;
    return stored;
  }

  /** Records the grant and returns whether a refresh token existed for it before. */
  recordGrant(email: string, clientId: string, scopes: string[]): boolean {
    const key = grantKey(email, clientId);
    const granted = this.#granted.get(key) ?? new Set<string>();
    for (const scope of scopes) granted.add(scope);
    this.#granted.set(key, granted);
    return [...this.#refreshTokens.values()].some(
      (token) => !token.revoked && token.email === email && token.clientId === clientId,
    );
  }

  issueRefreshToken(email: string, clientId: string, scopes: string[]): RefreshToken {
    // Google's refresh tokens look like "1//0g…".
    const token: RefreshToken = { token: `1//0${randomToken(72)}`, email, clientId, scopes, revoked: false };
    this.#refreshTokens.set(token.token, token);
    return token;
  }

  findRefreshToken(token: string): RefreshToken | undefined {
    const stored = this.#refreshTokens.get(token);
    return stored && !stored.revoked ? stored : undefined;
  }

  issueAccessToken(email: string, clientId: string, scopes: string[]): AccessToken {
    const token: AccessToken = {
      token: `ya29.${randomToken(120)}`,
      email,
      clientId,
      scopes,
      expiresAt: Date.now() + this.#accessTokenTtlMs,
      revoked: false,
    };
    this.#accessTokens.set(token.token, token);
    return token;
  }

  /** A live access token: known, unexpired and not revoked. */
  findAccessToken(token: string): AccessToken | undefined {
    const stored = this.#accessTokens.get(token);
    if (!stored || stored.revoked || stored.expiresAt <= Date.now()) return undefined;
    return stored;
  }

  /**
   * Revokes the grant behind an access or refresh token, with the codes not yet exchanged for it;
   * false when the token is unknown or dead.
   */
  revokeToken(token: string): boolean {
    const owner = this.findRefreshToken(token) ?? this.findAccessToken(token);
    if (!owner) return false;
    this.#revokeWhere((each) => each.email === owner.email && each.clientId === owner.clientId);
    this.#granted.delete(grantKey(owner.email, owner.clientId));
    return true;
  }

  /**
   * Revokes every grant of the account, to every client (the person removed access at Google),
   * including codes not yet exchanged. Returns how many live tokens were revoked (codes not counted).
   */
  revokeAccount(email: string): number {
    const revoked = this.#revokeWhere((each) => each.email === email);
    for (const key of [...this.#granted.keys()]) if (key.startsWith(`${email} `)) this.#granted.delete(key);
    return revoked;
  }

  reset(): void {
    this.#codes.clear();
    this.#refreshTokens.clear();
    this.#accessTokens.clear();
    this.#granted.clear();
  }

  /**
   * A removed grant takes its outstanding codes with it: a code issued before the revocation must
   * not mint tokens for the grant after it (RFC 7009 §2.1: revoking one token invalidates what was
   * issued on the same grant).
   */
  #revokeWhere(predicate: (token: { email: string; clientId: string }) => boolean): number {
    for (const code of this.#codes.values()) if (predicate(code)) code.used = true;
    let revoked = 0;
    for (const token of [...this.#refreshTokens.values(), ...this.#accessTokens.values()]) {
      if (!token.revoked && predicate(token)) {
        token.revoked = true;
        revoked += 1;
      }
    }
    return revoked;
  }
}

const grantKey = (email: string, clientId: string) => `${email} ${clientId}`;
