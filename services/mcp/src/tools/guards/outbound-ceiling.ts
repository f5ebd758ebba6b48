import { OUTBOUND_FUNCTIONS } from '../kit/formula-text.ts';
import type { OutboundAction } from './outbound-actions.ts';

/**
 * What the operator lets any call send outside a person's account, whatever the person allows
 * (issue 37, "operators set the ceiling"): OUTBOUND_SHARING_DOMAINS, OUTBOUND_LINK_SHARING and
 * OUTBOUND_FETCH_FORMULAS (settings.ts). The defaults allow everything, as before the settings.
 */
export interface OutboundCeiling {
  /** Domains sharing, notifications and writes into others' spreadsheets may reach besides the person's own; undefined: any. */
  sharingDomains?: readonly string[] | undefined;
  linkSharing: 'allow' | 'deny';
  fetchFormulas: 'allow' | 'deny';
}

export const NO_CEILING: OutboundCeiling = { linkSharing: 'allow', fetchFormulas: 'allow' };

/** The ceiling from the settings as the service reads them. */
export function outboundCeiling(settings: {
  OUTBOUND_SHARING_DOMAINS?: readonly string[] | undefined;
  OUTBOUND_LINK_SHARING: 'allow' | 'deny';
  OUTBOUND_FETCH_FORMULAS: 'allow' | 'deny';
}): OutboundCeiling {
  return {
    sharingDomains: settings.OUTBOUND_SHARING_DOMAINS,
    linkSharing: settings.OUTBOUND_LINK_SHARING,
    fetchFormulas: settings.OUTBOUND_FETCH_FORMULAS,
  };
}

/** Whether the ceiling forbids anything at all (a call needs no outbound check otherwise). */
export function restricts(ceiling: OutboundCeiling): boolean {
  return (
    ceiling.sharingDomains !== undefined || ceiling.linkSharing === 'deny' || ceiling.fetchFormulas === 'deny'
  );
}

/**
 * The refusal of the first action the ceiling forbids, naming the setting and what it allows;
 * undefined when every action is within it. Said before Google is asked anything.
 */
export function ceilingRefusal(
  ceiling: OutboundCeiling,
  actions: readonly OutboundAction[],
): string | undefined {
  for (const action of actions) {
    const why = forbidden(ceiling, action);
    if (why) return `Nothing was sent to Google: ${action.words}, which ${why}.`;
  }
  return undefined;
}

function forbidden(ceiling: OutboundCeiling, action: OutboundAction): string | undefined {
  switch (action.kind) {
    case 'link':
      return ceiling.linkSharing === 'deny'
        ? 'this server does not allow (its operator set OUTBOUND_LINK_SHARING=deny). Share with people by address instead'
        : undefined;
    case 'fetch':
      return ceiling.fetchFormulas === 'deny'
        ? `this server does not allow (its operator set OUTBOUND_FETCH_FORMULAS=deny: no ${OUTBOUND_FUNCTIONS.join(', ')} formulas). Write the values themselves instead`
        : undefined;
    default: {
      const allowed = ceiling.sharingDomains;
      if (allowed === undefined || (action.domain !== undefined && allowed.includes(action.domain)))
        return undefined;
      const list = allowed.length
        ? `your own Workspace domain and ${allowed.join(', ')} only`
        : 'your own Workspace domain only';
      return `reaches outside what this server allows (its operator set OUTBOUND_SHARING_DOMAINS: ${list})`;
    }
  }
}
