/** An OAuth 2.0 error answer (RFC 6749 §5.2): `{"error": …, "error_description": …}`. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: string, description: string, status = 400) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
  }
}
