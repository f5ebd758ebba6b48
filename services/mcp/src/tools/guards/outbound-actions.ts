import {
  type FetchUse,
  fetchesInCondition,
  fetchesInFormula,
  fetchesInReplacement,
} from './fetch-formulas.ts';
import { quotedName } from './loss-phrases.ts';
import { isOutside, type Person } from './outside-account.ts';

/**
 * The outbound actions a tool call would take (issue 37): what it sends, or gives access to,
 * beyond the person's own account — named in words the person reads, before anything reaches
 * Google. Pure: the call's parsed arguments and who the person is; update_permission's grantee
 * is a fact the tool reads first (`facts.permission`). docs/design.md §11.10 lists what each tool
 * is judged on and why.
 */
export type OutboundKind =
  /** Anyone with the link (`type: anyone`). */
  | 'link'
  /** Access given to a person, group or domain outside the account. */
  | 'share'
  /** The free text of a sharing e-mail, sent to a recipient outside. */
  | 'message'
  /** A comment or reply that notifies someone outside (a +address or @address mention). */
  | 'notify'
  /** A formula that fetches from, or reveals to, a host outside (fetch-formulas.ts). */
  | 'fetch'
  /** A write into (or comment on) a spreadsheet owned outside the account (writtenOutside). */
  | 'write';

export interface OutboundAction {
  kind: OutboundKind;
  /** Who or what receives it: an address, a domain, anyone with the link, the hosts fetched. */
  to: string;
  /** share, message, notify, write: the receiving domain, lower-case (what OUTBOUND_SHARING_DOMAINS is held to). */
  domain?: string;
  /** What goes to whom, as the person reads it. */
  words: string;
}

export interface ToolCall {
  name: string;
  args: Readonly<Record<string, unknown>>;
}

/** What only Google knows and a tool reads before it acts. */
export interface OutboundFacts {
  /** update_permission: the permission as it is now. */
  permission?: { type: string; role: string; emailAddress?: string | null; domain?: string | null };
}

const ROLE_RANK: Record<string, number> = { reader: 1, commenter: 2, writer: 3 };

/** Tools whose rule conditions are texts that may hold a formula after their type. */
const RULE_TOOLS = new Set(['set_data_validation', 'add_conditional_format', 'update_conditional_format']);
/** Tools whose strings are formulas, or values that may become formulas. */
const FORMULA_TOOLS = new Set([
  'write_range',
  'write_ranges',
  'append_rows',
  'create_spreadsheet',
  'batch_update',
  'find_replace',
  ...RULE_TOOLS,
]);
const SHARING_TOOLS = new Set(['share_file', 'update_permission']);
const COMMENT_TOOLS = new Set(['add_comment', 'reply_to_comment', 'resolve_comment']);

/**
 * The tools that can take an outbound action: their `openWorldHint` is true (defineTool), every
 * other tool's false. Writes into a spreadsheet someone else owns are not counted here (every
 * write tool could make one; docs/design.md §11.10), nor evaluate_formulas, which refuses the
 * fetch functions outright (kit/formula-text.ts).
 */
export const OUTBOUND_TOOLS: ReadonlySet<string> = new Set([
  ...SHARING_TOOLS,
  ...COMMENT_TOOLS,
  ...FORMULA_TOOLS,
]);

export function outboundActions(
  call: ToolCall,
  person: Person | undefined,
  facts: OutboundFacts = {},
): OutboundAction[] {
  const { name, args } = call;
  if (name === 'share_file') return sharing(args, person);
  if (name === 'update_permission') return roleChange(args, person, facts);
  if (COMMENT_TOOLS.has(name)) return mentions(args.content, person);
  if (FORMULA_TOOLS.has(name)) return fetches(name, args);
  return [];
}

/** Whether a recipient (an address, or a domain for `type: domain`) is outside; unknown person: outside. */
function outside(person: Person | undefined, recipient: { email?: string; domain?: string }): boolean {
  if (!person) return true;
  if (recipient.email !== undefined) return isOutside(person, recipient.email);
  return isOutside(person, `someone@${recipient.domain ?? ''}`);
}

function domainOf(address: string): string {
  return address
    .slice(address.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase();
}

function grantee(
  type: string,
  emailAddress: string | null | undefined,
  domain: string | null | undefined,
  role: string,
  person: Person | undefined,
): OutboundAction | undefined {
  if (type === 'anyone') {
    return { kind: 'link', to: 'anyone with the link', words: `anyone with the link may open it as ${role}` };
  }
  if (type === 'domain' && domain) {
    const lower = domain.toLowerCase();
    if (!outside(person, { domain: lower })) return undefined;
    return { kind: 'share', to: lower, domain: lower, words: `everyone at ${lower} gets ${role} access` };
  }
  if (emailAddress) {
    const address = emailAddress.toLowerCase();
    if (!outside(person, { email: address })) return undefined;
    const who = type === 'group' ? `the group ${address}` : address;
    return { kind: 'share', to: address, domain: domainOf(address), words: `${who} gets ${role} access` };
  }
  return undefined;
}

function sharing(args: ToolCall['args'], person: Person | undefined): OutboundAction[] {
  const type = String(args.type ?? 'user');
  const email = typeof args.emailAddress === 'string' ? args.emailAddress : undefined;
  const shared = grantee(
    type,
    email,
    typeof args.domain === 'string' ? args.domain : undefined,
    String(args.role),
    person,
  );
  if (!shared) return [];
  const actions = [shared];
  const message = args.emailMessage;
  if (shared.kind === 'share' && typeof message === 'string' && args.sendNotificationEmail !== false) {
    actions.push({
      kind: 'message',
      to: shared.to,
      ...(shared.domain ? { domain: shared.domain } : {}),
      words: `${shared.to} is e-mailed your message (${message.length} characters)`,
    });
  }
  return actions;
}

function roleChange(
  args: ToolCall['args'],
  person: Person | undefined,
  facts: OutboundFacts,
): OutboundAction[] {
  const now = facts.permission;
  // Without the grantee (not read yet) nothing can be said; the tool asks again once it has read it.
  if (!now) return [];
  const role = String(args.role);
  // Less access than now takes nothing further out.
  if ((ROLE_RANK[role] ?? 0) <= (ROLE_RANK[now.role] ?? 0)) return [];
  const changed = grantee(now.type, now.emailAddress, now.domain, role, person);
  return changed ? [changed] : [];
}

// +address or @address, as Drive comments mention people (the trailing punctuation of a sentence dropped).
const MENTION = /(?:^|[\s(])[+@]([^\s@()<>,;:"']+@[^\s@()<>,;:"']+?)(?=[.!?]*(?:$|[\s),;:]))/g;

function mentions(content: unknown, person: Person | undefined): OutboundAction[] {
  if (typeof content !== 'string') return [];
  const addresses = new Set<string>();
  for (const match of content.matchAll(MENTION)) addresses.add(match[1]!.toLowerCase());
  return [...addresses]
    .filter((address) => outside(person, { email: address }))
    .map((address) => ({
      kind: 'notify' as const,
      to: address,
      domain: domainOf(address),
      words: `${address} is notified of the comment and sent its text`,
    }));
}

function fetches(name: string, args: ToolCall['args']): OutboundAction[] {
  // RAW writes a value as text: `=IMAGE(…)` stays a string Sheets never computes. write_range's
  // valuesOnly writes what its formulas compute, refusing the fetch functions as evaluate_formulas does.
  if (args.valueInputOption === 'RAW' || args.valuesOnly === true) return [];
  const found: FetchUse[] = [];
  if (name === 'find_replace') {
    const use = typeof args.replacement === 'string' ? fetchesInReplacement(args.replacement) : undefined;
    if (use) found.push(use);
  } else {
    const inText = RULE_TOOLS.has(name) ? fetchesInCondition : fetchesInFormula;
    eachString(args, (value, key) => {
      const use = key === 'replacement' ? fetchesInReplacement(value) : inText(value);
      if (use) found.push(use);
    });
  }
  if (found.length === 0) return [];
  const functions = [...new Set(found.flatMap((use) => use.functions))];
  const hosts = [...new Set(found.flatMap((use) => use.hosts))];
  const to = hosts.length ? hosts.join(', ') : 'a URL the formula builds';
  return [
    {
      kind: 'fetch',
      to,
      words: `${functions.join(', ')} makes Google fetch ${hosts.length ? `from ${to}` : to}, sending what the URL holds (cells included) each time the sheet is computed`,
    },
  ];
}

/** Every string in the arguments, with the key it is under (the input is bounded by its schema). */
function eachString(
  value: unknown,
  visit: (text: string, key: string | undefined) => void,
  key?: string,
): void {
  if (typeof value === 'string') visit(value, key);
  else if (Array.isArray(value)) for (const item of value) eachString(item, visit, key);
  else if (value && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) eachString(item, visit, name);
}

/**
 * Who owns a file, as Drive's files.get answers `name,owners(emailAddress,me),driveId`
 * (https://developers.google.com/workspace/drive/api/reference/rest/v3/files): `owners` are Drive
 * User resources whose `me` says "whether this user is the requesting user"; a file in a shared
 * drive has no owners, and its `driveId` instead.
 */
export interface FileOwnership {
  name?: string | null | undefined;
  owners?: ReadonlyArray<{ emailAddress?: string | null; me?: boolean | null }> | null | undefined;
  driveId?: string | null | undefined;
}

/**
 * The outbound action of writing into (or, `verb` "comments on", commenting on) a spreadsheet the
 * person does not own, or null when it is theirs or inside their account:
 * - an owner that is `me`: the person's own file;
 * - otherwise the first owner, outside as isOutside reads an address (a colleague's file shared
 *   with a Workspace person is inside; for a consumer person every other owner is outside; an owner
 *   whose address Google does not show, or an unknown person, outside);
 * - a shared drive's file (no owners): shared drives belong to a Workspace organisation, so it is
 *   inside for a Workspace person (Drive names no organisation for a shared drive: one of another
 *   organisation the person is a member of counts as inside too) and outside for a consumer person,
 *   who has no organisation of their own, or one not known.
 */
export function writtenOutside(
  file: FileOwnership,
  person: Person | undefined,
  verb = 'writes into',
): OutboundAction | null {
  const owners = file.owners ?? [];
  if (owners.some((owner) => owner.me === true)) return null;
  const what = file.name ? `the spreadsheet ${quotedName(file.name)}` : 'a spreadsheet';
  if (owners.length === 0 && file.driveId) {
    if (person?.hostedDomain) return null;
    return {
      kind: 'write',
      to: 'a shared drive',
      words: `${verb} ${what} in a shared drive, which belongs to an organisation, not to your personal account`,
    };
  }
  const address = owners[0]?.emailAddress?.trim().toLowerCase();
  if (!address) {
    return {
      kind: 'write',
      to: 'an owner Google does not name',
      words: `${verb} ${what} owned by someone whose address Google does not show (not you)`,
    };
  }
  if (person && !isOutside(person, address)) return null;
  return {
    kind: 'write',
    to: address,
    domain: domainOf(address),
    words: `${verb} ${what} owned by ${address} (shared with you)`,
  };
}
