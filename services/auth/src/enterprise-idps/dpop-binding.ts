import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { checkDpopRequired } from 'oidc-provider/lib/helpers/sender_constraints.js';
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';

/**
 * The key a JWT bearer token request proves possession of (RFC 9449 §5), judged by oidc-provider's
 * own steps in the order its refresh-token grant runs them: the `DPoP` header's proof (signature by
 * its embedded public key under an allowed algorithm, `typ`, `htm`/`htu` of this endpoint, `iat`
 * window: else `invalid_dpop_proof`); a client registered with `dpop_bound_access_tokens` that
 * sent none (`invalid_grant`); the proof's `jti` not used before (`invalid_grant`, as the code
 * flow answers). Undefined when the request carries no proof: the token stays a bearer token.
 * Run before the assertion is judged, so a refused proof spends no ID-JAG.
 */
export async function proofOfPossession(
  provider: Provider,
  ctx: KoaContextWithOIDC,
): Promise<{ thumbprint: string } | undefined> {
  const proof = await validateDpop(provider, ctx);
  checkDpopRequired(provider, ctx, proof);
  await checkDpopReplay(provider, ctx, proof, ctx.oidc.client!.clientId);
  return proof && { thumbprint: proof.thumbprint };
}
