// The DPoP steps oidc-provider's own grants run at the token endpoint (lib/actions/grants). It
// hands them to those grants bound to the provider; a grant added with registerGrantType is called
// with ctx alone, so dpop-binding.ts imports them from where they live (oidc-provider 9.13, which
// has no "exports" map). Typed here as that version defines them.
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  import type Provider from 'oidc-provider';
  import type { KoaContextWithOIDC } from 'oidc-provider';

  /** A proof that passed: its key's RFC 7638 thumbprint, its `jti` and `iat`. */
  export interface ValidatedDpopProof {
    thumbprint: string;
    jti: string;
    iat: number;
  }

  /**
   * The request's `DPoP` header checked as RFC 9449 §4.3 says, against the provider's
   * `dPoPSigningAlgValues`, this endpoint's URL and method and its `iat` window; undefined without
   * a header. A bad proof throws `errors.InvalidDpopProof` (`invalid_dpop_proof`).
   */
  export default function validateDpop(
    provider: Provider,
    ctx: KoaContextWithOIDC,
    accessToken?: string,
  ): Promise<ValidatedDpopProof | undefined>;

  /** The proof's `jti` recorded in the provider's ReplayDetection model; a second use throws. */
  export function checkDpopReplay(
    provider: Provider,
    ctx: KoaContextWithOIDC,
    dPoP: ValidatedDpopProof | undefined,
    clientId: string,
  ): Promise<void>;
}

declare module 'oidc-provider/lib/helpers/sender_constraints.js' {
  import type Provider from 'oidc-provider';
  import type { KoaContextWithOIDC } from 'oidc-provider';
  import type { ValidatedDpopProof } from 'oidc-provider/lib/helpers/validate_dpop.js';

  /** A client registered with `dpop_bound_access_tokens: true` that sent no proof: invalid_grant. */
  export function checkDpopRequired(
    provider: Provider,
    ctx: KoaContextWithOIDC,
    dPoP: ValidatedDpopProof | undefined,
  ): void;
}
