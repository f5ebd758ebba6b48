import type { OutboundCeilingSettings } from '@sheetgate/proto';

/**
 * What the operator's ceiling (docs/design.md §11.10) forbids every key and app, in the person's
 * words; empty when it forbids nothing (the defaults).
 */
export function ceilingForbids(ceiling: OutboundCeilingSettings): string[] {
  const forbidden: string[] = [];
  if (ceiling.OUTBOUND_LINK_SHARING === 'deny') forbidden.push('Link sharing (anyone with the link)');
  const domains = ceiling.OUTBOUND_SHARING_DOMAINS;
  if (domains !== undefined) {
    // mcp holds shares, mentions and writes into others' spreadsheets (by the owner's domain) to it.
    const reach =
      'Sharing with or mentioning people outside your own Workspace domain, or writing into spreadsheets they own';
    forbidden.push(domains.length === 0 ? reach : `${reach}, except at ${domains.join(', ')}`);
  }
  if (ceiling.OUTBOUND_FETCH_FORMULAS === 'deny')
    forbidden.push(
      'Formulas that fetch from the web or other spreadsheets (such as IMPORTXML, IMAGE, IMPORTRANGE)',
    );
  return forbidden;
}
