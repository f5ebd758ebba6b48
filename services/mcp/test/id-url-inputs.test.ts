import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../src/errors/tool-error.ts';
import { idOf } from '../src/tools/kit/google-ids.ts';
import { explainRangeRefusals } from '../src/tools/kit/range-refusals.ts';
import type { ToolDefinition } from '../src/tools/kit/tool-definition.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { registeredTools } from '../src/tools/registry.ts';

// Inputs as people have them (issue 35, item 5), on the definitions themselves: every id input of
// every registered tool takes the URL a person copies from the browser and hands the tool the id;
// every tab input takes the tab's name as well as its sheetId; and what is not a Google URL is
// refused in words before any call. The calls through the real stack are in
// inputs-as-people-have-them.test.ts.

const ID = '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd';
const FOLDER = '0BxFolderIdOfSomeLength_-9';
const URLS = {
  spreadsheetId: [
    `https://docs.google.com/spreadsheets/d/${ID}/edit#gid=123`,
    `https://docs.google.com/spreadsheets/u/1/d/${ID}/edit?usp=sharing`,
    `docs.google.com/spreadsheets/d/${ID}`,
    `https://drive.google.com/open?id=${ID}`,
  ],
  fileId: [
    `https://drive.google.com/file/d/${ID}/view?usp=drive_link`,
    `https://docs.google.com/document/d/${ID}/edit`,
  ],
  folderId: [
    `https://drive.google.com/drive/folders/${FOLDER}`,
    `https://drive.google.com/drive/u/0/folders/${FOLDER}?usp=sharing`,
  ],
};

/** The keys of a tool's input that hold an id, and of which kind. */
function idInputs(tool: ToolDefinition): Array<[key: string, kind: keyof typeof URLS]> {
  const shape = tool.inputSchema.shape as Record<string, z.ZodType>;
  return Object.keys(shape).flatMap((key): Array<[string, keyof typeof URLS]> => {
    if (key === 'spreadsheetId' || key === 'destinationSpreadsheetId') return [[key, 'spreadsheetId']];
    if (key === 'fileId') return [[key, 'fileId']];
    if (key === 'folderId' || key === 'parentId') return [[key, 'folderId']];
    return [];
  });
}

/** `value` as the tool's `key` input reads it. */
function parseWith(tool: ToolDefinition, key: string, value: unknown) {
  const shape = tool.inputSchema.shape as Record<string, z.ZodType>;
  return (shape[key] as z.ZodType).safeParse(value);
}

describe('every id input takes the URL a person has', () => {
  const tools = registeredTools();
  const withIds = tools.filter((tool) => idInputs(tool).length > 0);

  it('covers every tool that names a spreadsheet, file or folder', () => {
    const named = tools.filter((tool) =>
      /spreadsheetId|fileId/.test(
        JSON.stringify(z.toJSONSchema(tool.inputSchema, { io: 'input' }).properties),
      ),
    );
    expect(withIds.map((tool) => tool.name)).toEqual(expect.arrayContaining(named.map((tool) => tool.name)));
    expect(withIds.length).toBeGreaterThan(60);
  });

  for (const tool of withIds)
    it(`${tool.name}: ${idInputs(tool)
      .map(([key]) => key)
      .join(', ')} from a URL`, () => {
      for (const [key, kind] of idInputs(tool)) {
        for (const url of URLS[kind]) {
          const parsed = parseWith(tool, key, url);
          expect(parsed.success, `${key} ← ${url}`).toBe(true);
          expect(parsed.data).toBe(kind === 'folderId' ? FOLDER : ID);
        }
        // The id itself stays an id.
        expect(parseWith(tool, key, kind === 'folderId' ? FOLDER : ID).data).toBe(
          kind === 'folderId' ? FOLDER : ID,
        );
        // In tools/list still a plain string, said in few words.
        const listed = (
          z.toJSONSchema(tool.inputSchema, { io: 'input' }) as {
            properties: Record<
              string,
              { type?: string; anyOf?: Array<{ type?: string }>; description?: string }
            >;
          }
        ).properties[key]!;
        const types = listed.anyOf ? listed.anyOf.map((each) => each.type) : [listed.type];
        expect(types, key).toContain('string');
        expect(JSON.stringify(listed).length, key).toBeLessThan(300);
      }
    });
});

describe('what is not a Google URL is refused in words', () => {
  const refusal = (text: string, kind: 'spreadsheet' | 'file' | 'folder' = 'spreadsheet') => {
    const read = idOf(text, kind);
    return 'refusal' in read ? read.refusal : `read as ${read.id}`;
  };

  it('another host, however it is dressed', () => {
    for (const url of [
      `https://evil.example/spreadsheets/d/${ID}/edit`,
      `https://docs.google.com.evil.example/spreadsheets/d/${ID}/edit`,
      `https://evil.example/?next=https://docs.google.com/spreadsheets/d/${ID}`,
      `ftp://docs.google.com/spreadsheets/d/${ID}`,
    ])
      expect(refusal(url), url).toBe(
        'only a docs.google.com or drive.google.com URL is read for its spreadsheetId',
      );
  });

  it('javascript:, data: and file: URLs', () => {
    for (const url of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>1</script>',
      'file:///etc/passwd',
    ])
      expect(refusal(url), url).toBe(
        'only a docs.google.com or drive.google.com URL is read for its spreadsheetId',
      );
  });

  it('a Google URL of something else says what it is', () => {
    expect(refusal(`https://docs.google.com/document/d/${ID}/edit`)).toBe(
      'this is the URL of a Google Docs document, not of a spreadsheet',
    );
    expect(refusal(`https://drive.google.com/drive/folders/${FOLDER}`)).toBe(
      'this is the URL of a folder, not of a spreadsheet',
    );
    expect(refusal(`https://docs.google.com/spreadsheets/d/${ID}`, 'folder')).toBe(
      'this is the URL of a spreadsheet, not of a folder',
    );
    expect(refusal(`https://docs.google.com/spreadsheets/d/e/2PACX-1vQabcdefghijklmnop/pubhtml`)).toBe(
      'a published (/d/e/) link does not carry the spreadsheet id: give its edit URL',
    );
    expect(refusal('https://docs.google.com/spreadsheets/u/0/')).toBe(
      'this URL names no spreadsheet: give its id or its URL from the browser',
    );
  });

  it('text that is neither an id nor a URL', () => {
    expect(refusal("x' or '1'='1")).toBe(
      "a spreadsheetId has only letters, digits, - and _ (or give the spreadsheet's URL)",
    );
    expect(refusal('../../etc/passwd')).toMatch(/^only a docs\.google\.com|^a spreadsheetId has only/);
  });

  it('an over-long URL is refused by the schema, before it is taken apart', () => {
    const write = registeredTools().find((tool) => tool.name === 'write_range')!;
    const long = `https://docs.google.com/spreadsheets/d/${ID}/edit?${'x'.repeat(3_000)}`;
    const parsed = parseWith(write, 'spreadsheetId', long);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'a spreadsheetId or URL is at most 2,000 characters',
    ]);
  });

  it('an input taking a folder or "root" says the refusal, not only that nothing matched', () => {
    const contents = registeredTools().find((tool) => tool.name === 'list_folder_contents')!;
    expect(parseWith(contents, 'folderId', 'javascript:alert(1)').error?.issues[0]?.message).toBe(
      'only a docs.google.com or drive.google.com URL is read for its folderId',
    );
    expect(parseWith(contents, 'folderId', 'root').data).toBe('root');
  });

  it('an id read out of a URL is still checked as an id', () => {
    expect(
      parseWith(registeredTools()[1]!, 'spreadsheetId', 'https://docs.google.com/spreadsheets/d/short/edit')
        .error?.issues[0]?.message,
    ).toBe('a spreadsheetId has 10 to 200 characters');
  });
});

describe('every tab input takes a name or a sheetId', () => {
  const withTabs = registeredTools().filter((tool) => 'sheetId' in tool.inputSchema.shape);

  it('those that took only a sheetId', () => {
    expect(withTabs.map((tool) => tool.name).sort()).toEqual(
      [
        'clear_basic_filter',
        'copy_sheet_to',
        'delete_conditional_format',
        'delete_dimension',
        'delete_sheet',
        'duplicate_sheet',
        'freeze',
        'get_spreadsheet',
        'insert_dimension',
        'list_charts',
        'list_conditional_formats',
        'list_filters',
        'list_tables',
        'rename_sheet',
        'set_dimension_properties',
        'update_conditional_format',
      ].sort(),
    );
  });

  for (const tool of withTabs)
    it(`${tool.name}: a name, a sheetId, never a negative or empty one`, () => {
      const shape = tool.inputSchema.shape as Record<string, z.ZodType>;
      expect(shape.sheetId!.safeParse('Q3 budget').data).toBe('Q3 budget');
      expect(shape.sheetId!.safeParse(7).data).toBe(7);
      expect(shape.sheetId!.safeParse(-1).success).toBe(false);
      expect(shape.sheetId!.safeParse('').success).toBe(false);
    });
});

describe('a refusal of a range by Google says the way out', () => {
  const refusing = (scope: ToolDefinition['scope'], message: string) =>
    explainRangeRefusals({} as ToolDeps, [
      {
        name: 'write_range',
        scope,
        run: async () => {
          throw new ToolError(message);
        },
      } as unknown as ToolDefinition,
    ])[0]!;
  const context = {} as Parameters<ToolDefinition['run']>[1];

  it("a write past the grid names append_rows and insert_dimension, with Google's limits", async () => {
    // Google's values.update refuses a range that starts past the tab's grid this way.
    const tool = refusing(
      'sheets:write',
      'Google refused the request: Range (Sheet1!A1001:B1002) exceeds grid limits. Max rows: 1000, max columns: 26',
    );
    await expect(tool.run({ spreadsheetId: ID }, context)).rejects.toThrow(
      'Range (Sheet1!A1001:B1002) exceeds grid limits. Max rows: 1000, max columns: 26. The tab has no cells there: append_rows adds rows after a table; insert_dimension adds rows or columns anywhere.',
    );
  });

  it('a read past the grid is left as Google says it', async () => {
    const message =
      'Google refused the request: Range (Sheet1!A2000) exceeds grid limits. Max rows: 1000, max columns: 26';
    await expect(refusing('sheets:read', message).run({ spreadsheetId: ID }, context)).rejects.toThrow(
      message,
    );
  });
});
