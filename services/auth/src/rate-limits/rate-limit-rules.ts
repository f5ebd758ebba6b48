/** A fixed window: at most `points` requests per `durationSeconds` for one key. */
export interface RateLimitRule {
  points: number;
  durationSeconds: number;
}

/**
 * Sheetgate's limits (also documented in services/auth/README.md, "Rate limits"). Fixed windows are
 * burst-friendly on purpose: a script may spend its whole minute at once.
 */
export const defaultRateLimitRules = {
  /** Per API key, in ResolveApiKeys (every MCP request made with that key). */
  apiKey: { points: 600, durationSeconds: 60 },
  /**
   * Per client address (an IPv6 address by its /64), in ResolveApiKeys: well-formed keys that match
   * no key. Past it, keys not already verified are refused without a lookup until the window ends.
   */
  apiKeyFailures: { points: 100, durationSeconds: 600 },
  /** Per client IP on every /api/auth/* request. */
  authIp: { points: 300, durationSeconds: 60 },
  /** Per client IP on dynamic client registration: real clients register once. */
  register: { points: 20, durationSeconds: 3_600 },
  /** Per client IP on the token endpoint (code and refresh grants). */
  token: { points: 120, durationSeconds: 60 },
  /** Per account on sign-in. */
  signIn: { points: 20, durationSeconds: 600 },
} as const satisfies Record<string, RateLimitRule>;

export type RateLimitName = keyof typeof defaultRateLimitRules;

export const rateLimitNames = Object.keys(defaultRateLimitRules) as RateLimitName[];
