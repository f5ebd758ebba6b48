import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer, createLogger } from '@sheetgate/service-runtime';
import ExcelJS from 'exceljs';
import { unzipSync } from 'fflate';
import { OAuth2Client } from 'google-auth-library';
import { google, type sheets_v4 } from 'googleapis';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessControl } from '../src/access-control.ts';
import { GOOGLE_SCOPES, SPREADSHEET_MIME_TYPE } from '../src/contracts.ts';
import { MemoryFileStore } from '../src/drive/file-store.ts';
import { emulatorErrors } from '../src/http/error-middleware.ts';
import { GrantStore } from '../src/oauth/grant-store.ts';
import {
  CSV_MIME_TYPE,
  exportSpreadsheet,
  importSpreadsheet,
  ODS_MIME_TYPES,
  PDF_MIME_TYPE,
  spreadsheetConverter,
  TSV_MIME_TYPE,
  XLSX_MIME_TYPE,
} from '../src/sheets/convert.ts';
import type { SpreadsheetContents } from '../src/sheets/model.ts';
import { createSheetsRouter } from '../src/sheets/router.ts';
import { SpreadsheetStore } from '../src/sheets/spreadsheet-store.ts';

const ODS = ODS_MIME_TYPES[0] as string;
const OWNER = 'alice@example.com';

// The Sheets router on the emulator's real file store, access control and error middleware, so that
// imported contents can be stored directly and then read through the API.
const files = new MemoryFileStore();
const store = new SpreadsheetStore();
let server: http.Server;
let sheets: sheets_v4.Sheets;

beforeAll(async () => {
  const grants = new GrantStore(3600);
  const app = new Koa();
  app.use(emulatorErrors(createLogger({ service: 'sheets-convert-test', level: 'silent' })));
  app.use(createSheetsRouter({ files, access: createAccessControl(grants), spreadsheets: store }).routes());
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const auth = new OAuth2Client();
  auth.setCredentials({
    access_token: grants.issueAccessToken(OWNER, 'test-client', [GOOGLE_SCOPES.spreadsheets]).token,
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  sheets = google.sheets({ version: 'v4', rootUrl: url, auth });
});

afterAll(async () => {
  await closeHttpServer(server);
});

function storeImported(contents: SpreadsheetContents) {
  const file = files.create(
    { name: contents.title, mimeType: SPREADSHEET_MIME_TYPE, ownerEmail: OWNER },
    'test-client',
  );
  return store.create(file.id, contents);
}

async function values(spreadsheetId: string, range: string, valueRenderOption = 'FORMATTED_VALUE') {
  return (await sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption })).data.values;
}

async function sampleXlsx(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Sales 2024');
  sheet.addRow(['Item', 'Qty', 'Price', 'Total', 'When', 'Paid']);
  sheet.addRow(['apples', 3, 1.5, { formula: 'B2*C2', result: 4.5 }, new Date(Date.UTC(2024, 2, 5)), true]);
  sheet.addRow(['pears', 2, 2.25, { formula: 'B3*C3', result: 4.5 }, new Date(Date.UTC(2024, 2, 6)), false]);
  sheet.getCell('E2').numFmt = 'yyyy-mm-dd';
  sheet.getCell('E3').numFmt = 'yyyy-mm-dd';
  sheet.getCell('C2').numFmt = '"$"#,##0.00';
  sheet.getCell('A1').font = { bold: true };
  const other = workbook.addWorksheet('Other');
  other.getCell('A1').value = { formula: "SUM('Sales 2024'!B2:B3)", result: 5 };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

describe('xlsx', () => {
  it('imports a real workbook, serves it through the API, and exports it back', async () => {
    const contents = await importSpreadsheet(await sampleXlsx(), XLSX_MIME_TYPE, 'Sales');
    expect(contents.sheets.map((sheet) => sheet.title)).toEqual(['Sales 2024', 'Other']);
    const spreadsheet = storeImported(contents);
    const id = spreadsheet.spreadsheetId;
    expect(await values(id, "'Sales 2024'!A1:F3")).toEqual([
      ['Item', 'Qty', 'Price', 'Total', 'When', 'Paid'],
      ['apples', '3', '$1.50', '4.5', '2024-03-05', 'TRUE'],
      ['pears', '2', '2.25', '4.5', '2024-03-06', 'FALSE'],
    ]);
    expect(await values(id, "'Sales 2024'!D2:E2", 'FORMULA')).toEqual([['=B2*C2', 45356]]);
    expect(await values(id, 'Other!A1', 'UNFORMATTED_VALUE')).toEqual([[5]]);

    // Change a value through the API: the export must carry the recomputed formula result.
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: "'Sales 2024'!B2",
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [[10]] },
    });
    const bytes = await exportSpreadsheet(store.get(id)!, XLSX_MIME_TYPE);
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    const reread = new ExcelJS.Workbook();
    await reread.xlsx.load(bytes as unknown as ExcelJS.Buffer);
    const sales = reread.getWorksheet('Sales 2024')!;
    expect(sales.getCell('D2').value).toEqual({ formula: 'B2*C2', result: 15 });
    expect(sales.getCell('B2').value).toBe(10);
    expect(sales.getCell('E2').numFmt).toBe('yyyy-mm-dd');
    expect(sales.getCell('E2').value).toEqual(new Date(Date.UTC(2024, 2, 5)));
    expect(sales.getCell('A1').font?.bold).toBe(true);
    expect(reread.getWorksheet('Other')!.getCell('A1').value).toEqual({
      formula: "SUM('Sales 2024'!B2:B3)",
      result: 12,
    });
  });

  it('refuses bytes that are not a workbook with a 400', async () => {
    await expect(importSpreadsheet(Buffer.from('not a zip'), XLSX_MIME_TYPE, 'Bad')).rejects.toMatchObject({
      code: 400,
    });
  });
});

describe('csv and tsv', () => {
  it('imports csv as typed values, quotes and all', async () => {
    const csv =
      'name,amount,when,note\r\n"Smith, Jo",1234.5,2024-03-05,"said ""hi""\ntwice"\r\nLee,=B2*2,,\'007\r\n';
    const contents = await importSpreadsheet(Buffer.from(csv), CSV_MIME_TYPE, 'People');
    const id = storeImported(contents).spreadsheetId;
    expect(await values(id, 'Sheet1!A1:D3')).toEqual([
      ['name', 'amount', 'when', 'note'],
      ['Smith, Jo', '1234.5', '2024-03-05', 'said "hi"\ntwice'],
      ['Lee', '2469', '', '007'],
    ]);
  });

  it('exports the first sheet (or a chosen one) as formatted values', async () => {
    const spreadsheet = storeImported({
      title: 'Export',
      sheets: [
        {
          title: 'First',
          rows: [
            [{ userEnteredValue: { stringValue: 'a,b' } }, { userEnteredValue: { formulaValue: '=1/4' } }],
            [],
            [undefined, { userEnteredValue: { numberValue: 3 } }],
          ],
        },
        { title: 'Second', rows: [[{ userEnteredValue: { stringValue: 'second' } }]] },
      ],
    });
    expect((await exportSpreadsheet(spreadsheet, CSV_MIME_TYPE)).toString()).toBe('"a,b",0.25\r\n,\r\n,3');
    expect((await exportSpreadsheet(spreadsheet, TSV_MIME_TYPE)).toString()).toBe('a,b\t0.25\r\n\t\r\n\t3');
    const second = spreadsheet.sheets[1]!.properties.sheetId;
    expect((await exportSpreadsheet(spreadsheet, CSV_MIME_TYPE, { sheetId: second })).toString()).toBe(
      'second',
    );
  });
});

describe('ods', () => {
  it('round-trips values, types and formulas', async () => {
    const original = storeImported({
      title: 'Odf',
      sheets: [
        { title: 'Data', rows: [] },
        { title: 'My tab', rows: [] },
      ],
    });
    const id = original.spreadsheetId;
    await sheets.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'USER_ENTERED',
        data: [
          {
            range: 'Data!A1',
            values: [['label', '12%', '2024-03-05', 'TRUE', '=SUM(2,3)', "='My tab'!A1*2", 'x & <y>']],
          },
          { range: "'My tab'!A1", values: [[21]] },
        ],
      },
    });
    const bytes = await exportSpreadsheet(store.get(id)!, ODS);
    const entries = unzipSync(new Uint8Array(bytes));
    expect(Object.keys(entries)[0]).toBe('mimetype');
    expect(Buffer.from(entries.mimetype!).toString()).toBe('application/vnd.oasis.opendocument.spreadsheet');
    const xml = Buffer.from(entries['content.xml']!).toString();
    expect(xml).toContain('table:formula="of:=[$&apos;My tab&apos;.A1]*2"');

    const reimported = storeImported(await importSpreadsheet(bytes, ODS, 'Again'));
    expect(await values(reimported.spreadsheetId, 'Data!A1:G1')).toEqual([
      ['label', '12.00%', '2024-03-05', 'TRUE', '5', '42', 'x & <y>'],
    ]);
    expect(await values(reimported.spreadsheetId, 'Data!E1:F1', 'FORMULA')).toEqual([
      ['=SUM(2,3)', "='My tab'!A1*2"],
    ]);
  });
});

describe('pdf', () => {
  it('renders a PDF document', async () => {
    const spreadsheet = storeImported({
      title: 'Printable',
      sheets: [{ title: 'Sheet1', rows: [[{ userEnteredValue: { stringValue: 'hello' } }]] }],
    });
    const bytes = await exportSpreadsheet(spreadsheet, PDF_MIME_TYPE);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.subarray(-6).toString()).toContain('%%EOF');
  });
});

describe('spreadsheetConverter', () => {
  it('exports contents as Drive hands them over', async () => {
    const contents = await spreadsheetConverter.importContents(
      Buffer.from('a,1\nb,2'),
      CSV_MIME_TYPE,
      'Copy',
    );
    expect((await spreadsheetConverter.exportContents(contents, CSV_MIME_TYPE)).toString()).toBe(
      'a,1\r\nb,2',
    );
  });

  it('refuses formats it does not know', async () => {
    await expect(importSpreadsheet(Buffer.from('x'), 'application/msword', 'Doc')).rejects.toMatchObject({
      code: 400,
    });
  });
});
