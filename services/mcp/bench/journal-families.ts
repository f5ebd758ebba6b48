/**
 * The calls `bench:journal` times, one representative write per family of what the change journal
 * keeps (docs/design.md §11.8): each family's spreadsheet, the arguments of its n-th call (each a
 * real change), and how its spreadsheet is put back between rounds so the rounds are alike (a rule,
 * chart, tab or row added per call would otherwise pile up). The putting back goes straight to the
 * emulator, outside the timed calls and their counts.
 */

/** The emulator's Sheets and Drive API for the bench person (a Google access token of theirs). */
export interface EmulatorApi {
  get(path: string): Promise<unknown>;
  batchUpdate(spreadsheetId: string, requests: unknown[]): Promise<void>;
  seed(rows: number): Promise<string>;
  /** A tool call through the MCP service (a file Sheetgate made is the only one it may share). */
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface Family {
  family: string;
  tool: string;
  /** What one call changes, in words for the report. */
  call: string;
  /** Makes the family's spreadsheet; answers its calls and its putting back. */
  prepare(api: EmulatorApi): Promise<{
    args(n: number): Record<string, unknown>;
    reset?(): Promise<void>;
  }>;
}

const ROWS = 20;
/** The rules already on the tab a conditional format is added to. */
const STANDING_RULES = 2;

type SheetsAnswer = {
  sheets?: Array<{
    properties?: { sheetId?: number; gridProperties?: { rowCount?: number } };
    conditionalFormats?: unknown[];
    charts?: Array<{ chartId?: number }>;
  }>;
};

const firstTab = async (api: EmulatorApi, spreadsheetId: string, fields: string) =>
  ((await api.get(`/v4/spreadsheets/${spreadsheetId}?fields=${encodeURIComponent(fields)}`)) as SheetsAnswer)
    .sheets ?? [];

const rule = (n: number) => ({
  addConditionalFormatRule: {
    index: 0,
    rule: {
      ranges: [{ sheetId: 0, startRowIndex: 1, endRowIndex: ROWS, startColumnIndex: 2, endColumnIndex: 3 }],
      booleanRule: {
        condition: { type: 'NUMBER_LESS', values: [{ userEnteredValue: String(n) }] },
        format: { textFormat: { italic: true } },
      },
    },
  },
});

export const FAMILIES: Family[] = [
  {
    family: 'values',
    tool: 'write_range',
    call: '10 cells',
    async prepare(api) {
      const spreadsheetId = await api.seed(ROWS);
      return {
        args: (n) => ({
          spreadsheetId,
          range: 'Sheet1!A1:B5',
          values: Array.from({ length: 5 }, (_, row) => [`w${n}-${row}`, n + row]),
        }),
      };
    },
  },
  {
    family: 'notes',
    tool: 'set_notes',
    call: 'a note on 5 cells',
    async prepare(api) {
      const spreadsheetId = await api.seed(ROWS);
      return { args: (n) => ({ spreadsheetId, notes: [{ range: 'Sheet1!B2:B6', note: `note ${n}` }] }) };
    },
  },
  {
    family: 'structure cells',
    tool: 'format_range',
    call: '60 cells bold or not',
    async prepare(api) {
      const spreadsheetId = await api.seed(ROWS);
      return { args: (n) => ({ spreadsheetId, range: 'Sheet1!A1:C20', bold: n % 2 === 0 }) };
    },
  },
  {
    family: 'rules',
    tool: 'add_conditional_format',
    call: `a rule on a tab of ${STANDING_RULES}`,
    async prepare(api) {
      const spreadsheetId = await api.seed(ROWS);
      await api.batchUpdate(
        spreadsheetId,
        Array.from({ length: STANDING_RULES }, (_, n) => rule(n)),
      );
      return {
        args: (n) => ({
          spreadsheetId,
          ranges: ['Sheet1!B2:B20'],
          condition: 'NUMBER_GREATER',
          values: [n % 20],
          format: { backgroundColor: '#ffeeaa' },
        }),
        async reset() {
          const [tab] = await firstTab(api, spreadsheetId, 'sheets(properties.sheetId,conditionalFormats)');
          const extra = (tab?.conditionalFormats?.length ?? 0) - STANDING_RULES;
          if (extra > 0)
            await api.batchUpdate(
              spreadsheetId,
              Array.from({ length: extra }, () => ({
                deleteConditionalFormatRule: { sheetId: 0, index: 0 },
              })),
            );
        },
      };
    },
  },
  {
    family: 'objects',
    tool: 'add_chart',
    call: 'a column chart of 20 rows',
    async prepare(api) {
      const spreadsheetId = await api.seed(ROWS);
      return {
        args: (n) => ({ spreadsheetId, type: 'column', range: 'Sheet1!A1:C20', title: `Chart ${n}` }),
        async reset() {
          const tabs = await firstTab(api, spreadsheetId, 'sheets(charts.chartId)');
          const charts = tabs.flatMap((tab) => tab.charts ?? []);
          if (charts.length)
            await api.batchUpdate(
              spreadsheetId,
              charts.map((chart) => ({ deleteEmbeddedObject: { objectId: chart.chartId } })),
            );
        },
      };
    },
  },
  {
    family: 'tabs',
    tool: 'add_sheet',
    call: 'a new tab',
    async prepare(api) {
      const spreadsheetId = await api.seed(ROWS);
      return {
        args: (n) => ({ spreadsheetId, title: `Tab ${n}` }),
        async reset() {
          const tabs = await firstTab(api, spreadsheetId, 'sheets.properties.sheetId');
          const added = tabs.map((tab) => tab.properties?.sheetId ?? 0).filter((id) => id !== 0);
          if (added.length)
            await api.batchUpdate(
              spreadsheetId,
              added.map((sheetId) => ({ deleteSheet: { sheetId } })),
            );
        },
      };
    },
  },
  {
    family: 'dimensions',
    tool: 'insert_dimension',
    call: 'a row inside the data',
    async prepare(api) {
      const spreadsheetId = await api.seed(ROWS);
      const [tab] = await firstTab(api, spreadsheetId, 'sheets.properties(sheetId,gridProperties.rowCount)');
      const rowCount = tab?.properties?.gridProperties?.rowCount ?? ROWS;
      return {
        args: () => ({ spreadsheetId, sheetId: 0, dimension: 'ROWS', startIndex: 5, count: 1 }),
        async reset() {
          const [now] = await firstTab(api, spreadsheetId, 'sheets.properties.gridProperties.rowCount');
          const inserted = (now?.properties?.gridProperties?.rowCount ?? rowCount) - rowCount;
          if (inserted > 0)
            await api.batchUpdate(spreadsheetId, [
              {
                deleteDimension: {
                  range: { sheetId: 0, dimension: 'ROWS', startIndex: 5, endIndex: 5 + inserted },
                },
              },
            ]);
        },
      };
    },
  },
  {
    family: 'Drive',
    tool: 'share_file',
    call: "a person's role, reader or commenter",
    async prepare(api) {
      const made = await api.callTool('create_spreadsheet', { title: 'Shared by the bench' });
      const fileId = String(made.spreadsheetId);
      return {
        args: (n) => ({
          fileId,
          emailAddress: 'bob@example.com',
          role: n % 2 ? 'commenter' : 'reader',
          sendNotificationEmail: false,
        }),
      };
    },
  },
];
