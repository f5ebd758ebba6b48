import { IdJagRefusal } from './id-jag-refusal.ts';

/**
 * The scopes of the access token an ID-JAG buys: what the token request asks for (its `scope`, or
 * everything the ID-JAG grants when it names none), which must lie within both what the identity
 * provider granted and what the operator lets the client have (the extension's §7.2.1: the
 * intersection, least privilege). Asking beyond either is `invalid_scope` (RFC 6749 §5.2: "exceeds
 * the scope granted by the resource owner"); without `sheets:read` no call could be made with it.
 */
export function accessTokenScopes(options: {
  granted: readonly string[];
  allowed: readonly string[];
  requested: string | undefined;
}): string[] {
  const granted = new Set(options.granted);
  const allowed = new Set(options.allowed);
  const asked = options.requested?.split(' ').filter(Boolean);
  if (asked && asked.length > 0) {
    const beyondGrant = asked.filter((scope) => !granted.has(scope));
    if (beyondGrant.length > 0)
      throw new IdJagRefusal(
        'invalid_scope',
        'scope_beyond_grant',
        `the assertion does not grant ${beyondGrant.join(' ')}`,
      );
    const beyondPolicy = asked.filter((scope) => !allowed.has(scope));
    if (beyondPolicy.length > 0)
      throw new IdJagRefusal(
        'invalid_scope',
        'scope_beyond_policy',
        `this client may not have ${beyondPolicy.join(' ')} here`,
      );
  }
  const scopes = [...new Set(asked && asked.length > 0 ? asked : options.granted)].filter((scope) =>
    allowed.has(scope),
  );
  if (!scopes.includes('sheets:read'))
    throw new IdJagRefusal('invalid_scope', 'no_read_scope', 'an access token here needs sheets:read');
  return scopes;
}
