import { describe, expect, it } from 'vitest';
import { outboundSummary } from '../src/journal/outbound-marks.ts';
import { writtenOutside } from '../src/tools/guards/outbound-actions.ts';
import { ceilingRefusal, NO_CEILING } from '../src/tools/guards/outbound-ceiling.ts';
import { spreadsheetWrittenInto } from '../src/tools/guards/written-outside.ts';
import { registeredTools } from '../src/tools/registry.ts';

// Writing into a spreadsheet owned outside the person's account (issue 37): the pure classifier
// over what Drive says of the file's owners, and which spreadsheet each write tool writes into.

const alice = { email: 'alice@example.com', hostedDomain: 'example.com' };
const erin = { email: 'erin@gmail.com' };
const owned = (emailAddress: string, me = false) => ({ name: 'Plan', owners: [{ emailAddress, me }] });

describe('writtenOutside', () => {
  it('is nothing for the person’s own file, whoever they are', () => {
    expect(writtenOutside(owned('alice@example.com', true), alice)).toBeNull();
    expect(writtenOutside(owned('erin@gmail.com', true), undefined)).toBeNull();
  });

  it('is nothing for a colleague’s file shared with a Workspace person', () => {
    expect(writtenOutside(owned('Bob@Example.com'), alice)).toBeNull();
  });

  it('is an outbound write into a file owned at another domain, or by anyone else for a consumer', () => {
    expect(writtenOutside(owned('erin@gmail.com'), alice)).toEqual({
      kind: 'write',
      to: 'erin@gmail.com',
      domain: 'gmail.com',
      words: 'writes into the spreadsheet "Plan" owned by erin@gmail.com (shared with you)',
    });
    expect(writtenOutside(owned('alice@example.com'), erin)?.words).toBe(
      'writes into the spreadsheet "Plan" owned by alice@example.com (shared with you)',
    );
    // A subdomain is another domain (outside-account.ts).
    expect(writtenOutside(owned('carol@sub.example.com'), alice)?.to).toBe('carol@sub.example.com');
    expect(
      writtenOutside({ owners: [{ emailAddress: 'carol@other.org' }] }, alice, 'comments on')?.words,
    ).toBe('comments on a spreadsheet owned by carol@other.org (shared with you)');
  });

  it('takes every owner as outside while the person is not known', () => {
    expect(writtenOutside(owned('bob@example.com'), undefined)?.to).toBe('bob@example.com');
  });

  it('is outside for an owner Google does not name', () => {
    expect(writtenOutside({ name: 'Plan', owners: [{ me: false }] }, alice)).toEqual({
      kind: 'write',
      to: 'an owner Google does not name',
      words:
        'writes into the spreadsheet "Plan" owned by someone whose address Google does not show (not you)',
    });
    expect(writtenOutside({ name: 'Plan', owners: [] }, alice)?.kind).toBe('write');
  });

  it('takes a shared drive’s file (no owners) as inside for a Workspace person only', () => {
    const team = { name: 'Team plan', driveId: '0ATeam' };
    expect(writtenOutside(team, alice)).toBeNull();
    const words =
      'writes into the spreadsheet "Team plan" in a shared drive, which belongs to an organisation, not to your personal account';
    expect(writtenOutside(team, erin)).toEqual({ kind: 'write', to: 'a shared drive', words });
    expect(writtenOutside(team, undefined)?.words).toBe(words);
  });

  it('quotes the title as loss descriptions quote names: escaped, and cut at 100 characters', () => {
    const words = writtenOutside(
      { name: `Q3"\u202e${'x'.repeat(200)}`, owners: [{ emailAddress: 'e@gmail.com' }] },
      alice,
    )!.words;
    expect(words).toContain('"Q3\\"\\u{202e}');
    expect(words).toContain('x…"');
    expect(words).not.toContain('\u202e');
  });

  it('is held to OUTBOUND_SHARING_DOMAINS by its owner’s domain, and marked in the journal by its owner', () => {
    const action = writtenOutside(owned('erin@gmail.com'), alice)!;
    expect(ceilingRefusal(NO_CEILING, [action])).toBeUndefined();
    expect(ceilingRefusal({ ...NO_CEILING, sharingDomains: ['gmail.com'] }, [action])).toBeUndefined();
    expect(ceilingRefusal({ ...NO_CEILING, sharingDomains: [] }, [action])).toBe(
      'Nothing was sent to Google: writes into the spreadsheet "Plan" owned by erin@gmail.com (shared with you), which reaches outside what this server allows (its operator set OUTBOUND_SHARING_DOMAINS: your own Workspace domain only).',
    );
    const entry = {
      tool: 'write_range',
      spreadsheetId: 's',
      ranges: [],
      cells: 2,
      rows: 1,
      summary: 'wrote 2 cells of Sheet1!A1:B1',
    };
    expect(outboundSummary(entry, [action])).toBe(
      'outbound (into a spreadsheet of erin@gmail.com): wrote 2 cells of Sheet1!A1:B1',
    );
  });
});

describe('spreadsheetWrittenInto', () => {
  const tool = (name: string) => registeredTools().find((each) => each.name === name)!;

  it('is the spreadsheetId of a write, copy_sheet_to’s destination, and a comment’s file', () => {
    expect(spreadsheetWrittenInto(tool('write_range'), { spreadsheetId: 's', range: 'A1' })).toBe('s');
    expect(spreadsheetWrittenInto(tool('format_range'), { spreadsheetId: 's' })).toBe('s');
    expect(
      spreadsheetWrittenInto(tool('copy_sheet_to'), {
        spreadsheetId: 'source',
        destinationSpreadsheetId: 'dest',
      }),
    ).toBe('dest');
    expect(spreadsheetWrittenInto(tool('add_comment'), { fileId: 'f', content: 'hi' })).toBe('f');
    expect(
      spreadsheetWrittenInto(tool('resolve_comment'), { fileId: 'f', commentId: 'c', content: 'done' }),
    ).toBe('f');
  });

  it('is nothing for reads, new files, sharing, trash, undo, evaluate_formulas and a bare resolve', () => {
    for (const name of [
      'read_range',
      'evaluate_formulas',
      'create_spreadsheet',
      'copy_spreadsheet',
      'convert_file',
      'create_folder',
      'trash_file',
      'share_file',
      'update_permission',
      'remove_permission',
      'undo_change',
    ])
      expect(spreadsheetWrittenInto(tool(name), { spreadsheetId: 's', fileId: 's' }), name).toBeUndefined();
    expect(spreadsheetWrittenInto(tool('resolve_comment'), { fileId: 'f', commentId: 'c' })).toBeUndefined();
  });

  it('covers every other write tool (a new one included)', () => {
    const writing = registeredTools()
      .filter((each) => spreadsheetWrittenInto(each, { spreadsheetId: 's', fileId: 's', content: 'x' }))
      .map((each) => each.name);
    const writeTools = registeredTools().filter((each) => each.scope === 'sheets:write');
    expect(writing.length).toBe(writeTools.length - 9);
    expect(writing).toContain('batch_update');
    expect(writing).toContain('set_notes');
    expect(writing).toContain('delete_sheet');
  });
});
