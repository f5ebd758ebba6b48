import { canonicalToolsets, DEFAULT_TOOLSETS, type ToolsetName } from '@sheetgate/proto';
import { z } from 'zod';
import { isLoopbackHttp } from '../oidc/redirect-policy.ts';
import { RESOURCE_SCOPES } from '../oidc/resource.ts';

/**
 * ENTERPRISE_IDPS (docs/design.md §4.7): the enterprise identity providers whose Identity
 * Assertion JWT Authorization Grants (ID-JAGs) the token endpoint takes, as a JSON array. Every
 * rule is checked at start, and a refusal names the path of the value it refuses
 * (`ENTERPRISE_IDPS.0.clients.1.scopes`), so a typo never becomes a silently ignored provider.
 */

/** https, or http on a loopback host (a local identity provider, the emulator). */
const providerUrl = z.string().refine(
  (value) => {
    const url = URL.parse(value);
    if (!url || url.username || url.password || url.hash) return false;
    return url.protocol === 'https:' || isLoopbackHttp(url);
  },
  { message: 'expected an https URL (http only on a loopback host), without user information or fragment' },
);

const resourceScope = z.enum(RESOURCE_SCOPES);
const emailAddress = z
  .string()
  .regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'expected the e-mail address of a Sheetgate person')
  .transform((value) => value.toLowerCase());
const domainName = z
  .string()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'expected a domain name')
  .transform((value) => value.toLowerCase());

const clientPolicy = z
  .object({
    /** The client's id at Sheetgate (registered, or its Client ID Metadata Document URL). */
    clientId: z.string().min(1).max(2_048),
    /** The most an ID-JAG may give this client; `sheets:read` is needed for any call. */
    scopes: z
      .array(resourceScope)
      .min(1)
      .refine((scopes) => scopes.includes('sheets:read'), {
        message: 'must include sheets:read (every call to the MCP endpoint needs it)',
      })
      .transform((scopes) => [...new Set(scopes)]),
    /** The toolsets its tokens enable; the defaults of a new connection when left out. */
    toolsets: z
      .array(z.string())
      .min(1)
      .optional()
      .transform((names, ctx): ToolsetName[] => {
        if (!names) return [...DEFAULT_TOOLSETS];
        const known = canonicalToolsets(names);
        if (known) return known;
        ctx.addIssue({ code: 'custom', message: `unknown toolset among ${JSON.stringify(names)}` });
        return z.NEVER;
      }),
  })
  .strict();

const trustedIdp = z
  .object({
    /** The `iss` of its ID-JAGs, compared exactly (RFC 8414 issuer identifier). */
    issuer: providerUrl,
    /** Where its signing keys are published. */
    jwksUri: providerUrl,
    /** For a multi-tenant issuer: the `tenant` claim its ID-JAGs must carry. */
    tenant: z.string().min(1).max(256).optional(),
    clients: z.array(clientPolicy).min(1).max(100),
    /** People by the IdP's `sub`: sub → the e-mail of their Google account at Sheetgate. */
    subjects: z.record(z.string().min(1).max(256), emailAddress).optional(),
    /**
     * People by the ID-JAG's `email`, only at these domains, and only a person whose Google account
     * belongs to that domain's Workspace organisation.
     */
    emailDomains: z.array(domainName).min(1).max(100).optional(),
  })
  .strict()
  .superRefine((idp, ctx) => {
    if (!idp.subjects && !idp.emailDomains)
      ctx.addIssue({
        code: 'custom',
        message: 'says how its people map to Sheetgate people: "subjects", "emailDomains", or both',
      });
    const seen = new Set<string>();
    idp.clients.forEach((client, index) => {
      if (seen.has(client.clientId))
        ctx.addIssue({ code: 'custom', path: ['clients', index, 'clientId'], message: 'listed twice' });
      seen.add(client.clientId);
    });
  });

const trustedIdps = z
  .array(trustedIdp)
  .max(50)
  .superRefine((idps, ctx) => {
    const seen = new Set<string>();
    idps.forEach((idp, index) => {
      const key = `${idp.issuer}\n${idp.tenant ?? ''}`;
      if (seen.has(key))
        ctx.addIssue({
          code: 'custom',
          path: [index, 'issuer'],
          message: 'this issuer (and tenant) is listed twice',
        });
      seen.add(key);
    });
  });

export type TrustedIdp = z.infer<typeof trustedIdp>;
export type ClientPolicy = TrustedIdp['clients'][number];

/** The setting: absent or empty means no enterprise identity provider is trusted. */
export const enterpriseIdpsSetting = z
  .string()
  .optional()
  .transform((value, ctx): TrustedIdp[] => {
    if (!value) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({
        code: 'custom',
        message:
          'expected a JSON array like [{"issuer":"https://idp.example","jwksUri":"https://idp.example/keys","clients":[{"clientId":"…","scopes":["sheets:read"]}],"emailDomains":["example.com"]}]',
      });
      return z.NEVER;
    }
    const result = trustedIdps.safeParse(parsed);
    if (result.success) return result.data;
    for (const issue of result.error.issues)
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  });
