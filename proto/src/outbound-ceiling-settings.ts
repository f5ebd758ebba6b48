import { z } from 'zod';

const DOMAIN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * The operator's ceiling on outbound actions (issue 37, docs/design.md §11.10), as environment
 * settings: the fields mcp's and web's settings schemas both spread in, so that the MCP service
 * holds calls to exactly what the dashboard shows the person. The defaults allow everything.
 */
export const outboundCeilingSettings = {
  /**
   * Held before Google whatever a person allows. The domains (comma-separated, exact: a subdomain
   * is another) that sharing, comment mentions and writes into spreadsheets owned by others (by
   * their owner's domain) may reach besides the person's own; unset or empty: any (an env file's
   * empty line changes nothing); `none`: the person's own domain only. Link sharing is
   * OUTBOUND_LINK_SHARING's alone.
   */
  OUTBOUND_SHARING_DOMAINS: z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value.trim() === '') return undefined;
      if (value.trim().toLowerCase() === 'none') return [] as string[];
      const domains = value.split(',').map((domain) => domain.trim().toLowerCase());
      const bad = domains.find((domain) => !DOMAIN.test(domain));
      if (bad === undefined) return domains;
      context.addIssue({
        code: 'custom',
        message: `expected none or domains such as example.com, comma-separated (not ${JSON.stringify(bad)})`,
      });
      return z.NEVER;
    }),
  /** `deny`: no sharing with anyone who has the link (share_file type anyone, a role raised on one). */
  OUTBOUND_LINK_SHARING: z.enum(['allow', 'deny']).default('allow'),
  /** `deny`: no IMPORTXML, IMPORTDATA, IMPORTHTML, IMPORTFEED, IMAGE or IMPORTRANGE written by any tool. */
  OUTBOUND_FETCH_FORMULAS: z.enum(['allow', 'deny']).default('allow'),
};

/** The ceiling's settings as read: domains undefined for any, [] for the person's own only. */
export type OutboundCeilingSettings = z.output<z.ZodObject<typeof outboundCeilingSettings>>;
