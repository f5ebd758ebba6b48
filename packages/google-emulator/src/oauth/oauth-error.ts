/**
 * An error of Google's OAuth endpoints, in OAuth's shape (RFC 6749 §5.2):
 * `{"error":"invalid_grant","error_description":"Bad Request"}`.
 */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: string, description: string, status = 400) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
  }

  toJSON() {
    return { error: this.error, error_description: this.message };
  }
}

export const oauthErrors = {
  invalidRequest: (description: string) => new OAuthError('invalid_request', description),
  /** RFC 6749 §5.2: unknown client or failed client authentication; Google answers 401. */
  invalidClient: (description = 'Unauthorized') => new OAuthError('invalid_client', description, 401),
  /** RFC 6749 §5.2: a code or refresh token that is invalid, expired, revoked or used. */
  invalidGrant: (description = 'Bad Request') => new OAuthError('invalid_grant', description),
  unsupportedGrantType: (description = 'Invalid grant_type') =>
    new OAuthError('unsupported_grant_type', description),
  invalidToken: (description = 'Invalid Value') => new OAuthError('invalid_token', description),
};
