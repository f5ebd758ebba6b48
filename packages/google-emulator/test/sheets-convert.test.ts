import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { unzipSync, zipSync } from 'fflate';
import type { drive_v3, sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { driveFor, failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';
import { firstZipEntry, odsPackage } from './support/ods-package.ts';
import { deflatedZeros, zipPackage } from './support/zip-package.ts';

// Conversions as a client sees them: files uploaded to Drive with conversion to a native
// spreadsheet, read and changed through the Sheets API, exported again through Drive.
const SPREADSHEET = 'application/vnd.google-apps.spreadsheet';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ODS = 'application/vnd.oasis.opendocument.spreadsheet';

let emulator: GoogleEmulator;
let drive: drive_v3.Drive;
let sheets: sheets_v4.Sheets;
let uploadOptions: { rootUrl: string };

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, {
    scopes: [SCOPES.spreadsheets, SCOPES.driveFile],
  });
  drive = driveFor(emulator, auth);
  sheets = sheetsFor(emulator, auth);
  // googleapis builds upload URLs from the per-call rootUrl only (see the README).
  uploadOptions = { rootUrl: `${emulator.url}/` };
});
afterAll(async () => {
  await emulator?.close();
});

/** Uploads `bytes` to Drive asking for a native spreadsheet (Drive converts them). */
async function upload(name: string, mimeType: string, bytes: Buffer | string) {
  const { data } = await drive.files.create(
    {
      requestBody: { name, mimeType: SPREADSHEET },
      media: { mimeType, body: Readable.from([Buffer.from(bytes)]) },
      fields: 'id,name,mimeType',
    },
    uploadOptions,
  );
  expect(data.mimeType).toBe(SPREADSHEET);
  return data.id!;
}

async function exported(fileId: string, mimeType: string) {
  const { data } = await drive.files.export({ fileId, mimeType }, { responseType: 'arraybuffer' });
  return Buffer.from(data as ArrayBuffer);
}

async function values(spreadsheetId: string, range: string, valueRenderOption = 'FORMATTED_VALUE') {
  return (await sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption })).data.values;
}

async function sheetTitles(spreadsheetId: string) {
  const { data } = await sheets.spreadsheets.get({ spreadsheetId, fields: 'sheets.properties.title' });
  return data.sheets?.map((sheet) => sheet.properties?.title);
}

describe('xlsx (workbooks written by ExcelJS)', () => {
  async function sampleXlsx(): Promise<Buffer> {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Sales 2024');
    sheet.addRow(['Item', 'Qty', 'Price', 'Total', 'When', 'Paid']);
    sheet.addRow(['apples', 3, 1.5, { formula: 'B2*C2', result: 4.5 }, new Date(Date.UTC(2024, 2, 5)), true]);
    sheet.addRow([
      'pears',
      2,
      2.25,
      { formula: 'B3*C3', result: 4.5 },
      new Date(Date.UTC(2024, 2, 6)),
      false,
    ]);
    sheet.getCell('E2').numFmt = 'yyyy-mm-dd';
    sheet.getCell('E3').numFmt = 'yyyy-mm-dd';
    sheet.getCell('C2').numFmt = '"$"#,##0.00';
    sheet.getCell('A1').font = { bold: true };
    const other = workbook.addWorksheet('Other');
    other.getCell('A1').value = { formula: "SUM('Sales 2024'!B2:B3)", result: 5 };
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }

  it('converts an uploaded workbook, serves it through the API, and exports it back', async () => {
    const id = await upload('Sales', XLSX, await sampleXlsx());
    expect(await sheetTitles(id)).toEqual(['Sales 2024', 'Other']);
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
    const bytes = await exported(id, XLSX);
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
    const error = await failureOf(upload('Bad', XLSX, 'not a zip'));
    expect(error.response?.status).toBe(400);
    expect(error.response?.data.error.message).toMatch(/could not be converted/);
  });

  /** The sample workbook's zip entries, to be zipped again with or without a bomb. */
  async function sampleEntries() {
    return Object.entries(unzipSync(new Uint8Array(await sampleXlsx()))).map(([name, data]) => ({
      name,
      data,
    }));
  }
  const TOO_LARGE = {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: 'The xlsx file is too large: it unpacks to more than 128 MB.',
    errors: [{ reason: 'badRequest' }],
  };
  async function createdNamed(name: string) {
    return (await drive.files.list({ q: `name = '${name}'`, fields: 'files(id)' })).data.files;
  }

  it('refuses a workbook that declares more than 128 MB unpacked (a zip bomb) with a 400, and still serves', async () => {
    // A real workbook plus 130 MB of zeros, declared as such, deflated to about 130 KB: refused by
    // the declared sizes, before anything is inflated.
    const entries = await sampleEntries();
    const padding = {
      name: 'xl/media/padding.bin',
      deflated: deflatedZeros(130),
      declaredSize: 130 * 1024 * 1024,
    };
    const bomb = zipPackage([...entries, padding]);
    expect(bomb.length).toBeLessThan(256 * 1024);
    const error = await failureOf(upload('Bomb', XLSX, bomb));
    expect(error.response?.status).toBe(400);
    expect(error.response?.data.error).toMatchObject(TOO_LARGE);
    expect(await createdNamed('Bomb')).toEqual([]);
    // The same workbook without the padding, zipped by fflate, converts.
    const id = await upload(
      'Not a bomb',
      XLSX,
      Buffer.from(zipSync(unzipSync(new Uint8Array(await sampleXlsx())))),
    );
    expect(await sheetTitles(id)).toEqual(['Sales 2024', 'Other']);
  });

  it('refuses a zip bomb whose headers declare small sizes, by the bytes it inflates to, and creates nothing', async () => {
    // A real workbook plus an entry whose local header and central directory both declare 1 KB
    // (not 0: jszip skips an entry declared empty) while its deflate stream inflates to 129 MB.
    // jszip would inflate it whole before noticing the size mismatch.
    const entries = await sampleEntries();
    const padding = { name: 'xl/media/padding.bin', deflated: deflatedZeros(129), declaredSize: 1024 };
    const liar = zipPackage([...entries, padding]);
    expect(liar.length).toBeLessThan(256 * 1024);
    const error = await failureOf(upload('Liar', XLSX, liar));
    expect(error.response?.status).toBe(400);
    expect(error.response?.data.error).toMatchObject(TOO_LARGE);
    expect(await createdNamed('Liar')).toEqual([]);
    // The same workbook, zipped by the same hand without the padding, converts.
    const id = await upload('Honest', XLSX, zipPackage(entries));
    expect(await sheetTitles(id)).toEqual(['Sales 2024', 'Other']);
  });
});

describe('csv and tsv', () => {
  it('converts csv as typed values, quotes and all', async () => {
    const csv =
      'name,amount,when,note\r\n"Smith, Jo",1234.5,2024-03-05,"said ""hi""\ntwice"\r\nLee,=B2*2,,\'007\r\n';
    const id = await upload('People', 'text/csv', csv);
    expect(await sheetTitles(id)).toEqual(['Sheet1']);
    expect(await values(id, 'Sheet1!A1:D3')).toEqual([
      ['name', 'amount', 'when', 'note'],
      ['Smith, Jo', '1234.5', '2024-03-05', 'said "hi"\ntwice'],
      ['Lee', '2469', '', '007'],
    ]);
    expect(await values(id, 'Sheet1!B2:C2', 'UNFORMATTED_VALUE')).toEqual([[1234.5, 45356]]);
  });

  it('converts tsv', async () => {
    const id = await upload('Tabs', 'text/tab-separated-values', 'a\tb,c\n1\t2\n');
    expect(await values(id, 'A1:B2', 'UNFORMATTED_VALUE')).toEqual([
      ['a', 'b,c'],
      [1, 2],
    ]);
  });

  it('exports only the first sheet, as formatted values', async () => {
    const { data } = await sheets.spreadsheets.create({
      requestBody: {
        properties: { title: 'Export' },
        sheets: [{ properties: { title: 'First' } }, { properties: { title: 'Second' } }],
      },
    });
    const id = data.spreadsheetId!;
    await sheets.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'USER_ENTERED',
        data: [
          { range: 'First!A1', values: [['a,b', '=1/4'], [], ['', 3]] },
          { range: 'Second!A1', values: [['second']] },
        ],
      },
    });
    expect((await exported(id, 'text/csv')).toString()).toBe('"a,b",0.25\r\n,\r\n,3');
    expect((await exported(id, 'text/tab-separated-values')).toString()).toBe('a,b\t0.25\r\n\t\r\n\t3');
  });
});

describe('ods', () => {
  // content.xml as LibreOffice Calc writes it (ODF 1.3 Part 3): value types with their values in
  // attributes, display text in paragraphs, repeated rows and columns, OpenFormula with `of:`,
  // a formula as Microsoft Excel writes it (`msoxl:`), and a million trailing empty rows.
  const CONTENT_XML = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
  xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"
  xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2"
  xmlns:msoxl="http://schemas.microsoft.com/office/excel/formula" office:version="1.3">
 <office:automatic-styles>
  <style:style style:name="co1" style:family="table-column"/>
  <style:style style:name="ro1" style:family="table-row"/>
 </office:automatic-styles>
 <office:body>
  <office:spreadsheet>
   <table:calculation-settings table:automatic-find-labels="false"/>
   <table:table table:name="Q1 &amp; Q2" table:style-name="ta1">
    <table:table-column table:style-name="co1" table:number-columns-repeated="8" table:default-cell-style-name="Default"/>
    <table:table-row table:style-name="ro1">
     <table:table-cell office:value-type="string"><text:p>Item</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Qty</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Price</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Total</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>When</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Paid</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Share</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Note</text:p></table:table-cell>
    </table:table-row>
    <table:table-row table:style-name="ro1">
     <table:table-cell office:value-type="string"><text:p>apples</text:p></table:table-cell>
     <table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p></table:table-cell>
     <table:table-cell office:value-type="currency" office:currency="USD" office:value="1.5"><text:p>$1.50</text:p></table:table-cell>
     <table:table-cell table:formula="of:=[.B2]*[.C2]" office:value-type="float" office:value="4.5"><text:p>4.5</text:p></table:table-cell>
     <table:table-cell office:value-type="date" office:date-value="2024-03-05"><text:p>03/05/24</text:p></table:table-cell>
     <table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell>
     <table:table-cell office:value-type="percentage" office:value="0.125"><text:p>12.50%</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>two<text:s text:c="2"/>spaces &amp; <text:span text:style-name="T1">bold</text:span></text:p></table:table-cell>
    </table:table-row>
    <table:table-row table:style-name="ro1">
     <table:table-cell office:value-type="string"><text:p>pears</text:p></table:table-cell>
     <table:table-cell office:value-type="float" office:value="2"><text:p>2</text:p></table:table-cell>
     <table:table-cell office:value-type="currency" office:currency="USD" office:value="2.25"><text:p>$2.25</text:p></table:table-cell>
     <table:table-cell table:formula="of:=[.B3]*[.C3]" office:value-type="float" office:value="4.5"><text:p>4.5</text:p></table:table-cell>
     <table:table-cell office:value-type="date" office:date-value="2024-03-06T14:30:00"><text:p>03/06/24 14:30</text:p></table:table-cell>
     <table:table-cell office:value-type="boolean" office:boolean-value="false"><text:p>FALSE</text:p></table:table-cell>
     <table:table-cell office:value-type="percentage" office:value="0.5"><text:p>50.00%</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>line one</text:p><text:p>line<text:line-break/>two</text:p></table:table-cell>
    </table:table-row>
    <table:table-row table:style-name="ro1" table:number-rows-repeated="2">
     <table:table-cell table:number-columns-repeated="8"/>
    </table:table-row>
    <table:table-row table:style-name="ro1">
     <table:table-cell table:number-columns-repeated="2"/>
     <table:covered-table-cell/>
     <table:table-cell table:formula="of:=SUM([.D2:.D3])" office:value-type="float" office:value="9"><text:p>9</text:p></table:table-cell>
     <table:table-cell/>
     <table:table-cell office:value-type="float" office:value="7" table:number-columns-repeated="2"><text:p>7</text:p></table:table-cell>
     <table:table-cell table:number-columns-repeated="1017"/>
    </table:table-row>
    <table:table-row table:style-name="ro1" table:number-rows-repeated="1048570">
     <table:table-cell table:number-columns-repeated="1024"/>
    </table:table-row>
   </table:table>
   <table:table table:name="Other">
    <table:table-row>
     <table:table-cell table:formula="of:=SUM([$'Q1 &amp; Q2'.B2:.B3])" office:value-type="float" office:value="5"><text:p>5</text:p></table:table-cell>
    </table:table-row>
    <table:table-row>
     <table:table-cell table:formula="msoxl:=SUM('Q1 &amp; Q2'!C2:C3)" office:value-type="float" office:value="3.75"><text:p>3.75</text:p></table:table-cell>
    </table:table-row>
    <table:table-row>
     <table:table-cell office:value-type="time" office:time-value="PT14H30M00S"><text:p>14:30:00</text:p></table:table-cell>
    </table:table-row>
   </table:table>
  </office:spreadsheet>
 </office:body>
</office:document-content>
`;

  const EXPECTED_FORMATTED = [
    ['Item', 'Qty', 'Price', 'Total', 'When', 'Paid', 'Share', 'Note'],
    ['apples', '3', '$1.50', '4.5', '2024-03-05', 'TRUE', '12.50%', 'two  spaces & bold'],
    ['pears', '2', '$2.25', '4.5', '2024-03-06 14:30:00', 'FALSE', '50.00%', 'line one\nline\ntwo'],
    [],
    [],
    ['', '', '', '9', '', '7', '7'],
  ];

  it('converts an OpenDocument file built by hand (not by the emulator) uploaded to Drive, and round-trips it', async () => {
    const id = await upload('From LibreOffice', ODS, odsPackage(CONTENT_XML));
    expect(await sheetTitles(id)).toEqual(['Q1 & Q2', 'Other']);
    expect(await values(id, "'Q1 & Q2'!A1:H6")).toEqual(EXPECTED_FORMATTED);
    expect(await values(id, "'Q1 & Q2'!A2:G2", 'UNFORMATTED_VALUE')).toEqual([
      ['apples', 3, 1.5, 4.5, 45356, true, 0.125],
    ]);
    expect(await values(id, "'Q1 & Q2'!D2:D6", 'FORMULA')).toEqual([
      ['=B2*C2'],
      ['=B3*C3'],
      [],
      [],
      ['=SUM(D2:D3)'],
    ]);
    expect(await values(id, 'Other!A1:A3', 'FORMULA')).toEqual([
      ["=SUM('Q1 & Q2'!B2:B3)"],
      ["=SUM('Q1 & Q2'!C2:C3)"],
      [0.6041666666666666],
    ]);
    expect(await values(id, 'Other!A1:A3')).toEqual([['5'], ['3.75'], ['2:30:00 PM']]);

    // Formulas are live: a change through the API reaches them.
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: "'Q1 & Q2'!B2",
      valueInputOption: 'RAW',
      requestBody: { values: [[4]] },
    });
    expect(await values(id, 'Other!A1:A1', 'UNFORMATTED_VALUE')).toEqual([[6]]);
    expect(await values(id, "'Q1 & Q2'!D6", 'UNFORMATTED_VALUE')).toEqual([[10.5]]);

    // Export through Drive: a valid package (mimetype first, stored, no extra field) whose
    // conversion back gives the same values.
    const bytes = await exported(id, ODS);
    expect(firstZipEntry(bytes)).toEqual({ name: 'mimetype', compression: 0, extraLength: 0, data: ODS });
    const again = await upload('Round trip', ODS, bytes);
    expect(await sheetTitles(again)).toEqual(['Q1 & Q2', 'Other']);
    const changed = structuredClone(EXPECTED_FORMATTED);
    changed[1]![1] = '4';
    changed[1]![3] = '6';
    changed[5]![3] = '10.5';
    expect(await values(again, "'Q1 & Q2'!A1:H6")).toEqual(changed);
    expect(await values(again, 'Other!A1:A3', 'FORMULA')).toEqual([
      ["=SUM('Q1 & Q2'!B2:B3)"],
      ["=SUM('Q1 & Q2'!C2:C3)"],
      [0.6041666666666666],
    ]);
  });

  it('exports what the Sheets API wrote as OpenFormula with quoted sheet names', async () => {
    const { data } = await sheets.spreadsheets.create({
      requestBody: {
        properties: { title: 'Odf' },
        sheets: [{ properties: { title: 'Data' } }, { properties: { title: 'My tab' } }],
      },
    });
    const id = data.spreadsheetId!;
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
    const bytes = await exported(id, ODS);
    const entries = unzipSync(new Uint8Array(bytes));
    expect(Object.keys(entries).sort()).toEqual(['META-INF/manifest.xml', 'content.xml', 'mimetype']);
    const xml = Buffer.from(entries['content.xml']!).toString();
    expect(xml).toContain('table:formula="of:=[$&apos;My tab&apos;.A1]*2"');
    expect(xml).toContain('table:formula="of:=SUM(2;3)"');

    const reimported = await upload('Again', ODS, bytes);
    expect(await values(reimported, 'Data!A1:G1')).toEqual([
      ['label', '12.00%', '2024-03-05', 'TRUE', '5', '42', 'x & <y>'],
    ]);
    expect(await values(reimported, 'Data!E1:F1', 'FORMULA')).toEqual([['=SUM(2,3)', "='My tab'!A1*2"]]);
  });

  it('refuses broken and hostile packages with a 400', async () => {
    const table = (rows: string) =>
      CONTENT_XML.replace(/<table:table table:name="Other">[\s\S]*?<\/table:table>/, '').replace(
        /(<table:table table:name="Q1 &amp; Q2"[^>]*>)[\s\S]*?(<\/table:table>)/,
        `$1${rows}$2`,
      );
    const cell = '<table:table-cell office:value-type="float" office:value="1"/>';
    const hostile: Array<[string, Buffer | string, RegExp]> = [
      ['not a zip', 'PK not really', /content\.xml is missing/],
      ['no content.xml', odsPackage(CONTENT_XML).subarray(0, 90), /content\.xml is missing/],
      [
        'a million rows of values',
        odsPackage(table(`<table:table-row table:number-rows-repeated="2000000">${cell}</table:table-row>`)),
        /more than 1000000 cells/,
      ],
      [
        'columns past ZZZ',
        odsPackage(
          table(
            `<table:table-row><table:table-cell table:number-columns-repeated="18278"/>${cell}</table:table-row>`,
          ),
        ),
        /more than 18278 columns/,
      ],
      [
        'a bad repeat count',
        odsPackage(table(`<table:table-row table:number-rows-repeated="-3">${cell}</table:table-row>`)),
        /bad repeat count/,
      ],
      ['not XML', odsPackage('<office:document-content><table:table'), /./],
    ];
    for (const [label, bytes, message] of hostile) {
      const error = await failureOf(upload(label, ODS, bytes));
      expect(error.response?.status, label).toBe(400);
      expect(error.response?.data.error.message, label).toMatch(message);
    }
  });

  it('reads a number cell without a usable office:value as its text', async () => {
    const id = await upload(
      'Odd',
      ODS,
      odsPackage(
        CONTENT_XML.replace(
          '<table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p>',
          '<table:table-cell office:value-type="float" office:value="three"><text:p>three</text:p>',
        ),
      ),
    );
    expect(await values(id, "'Q1 & Q2'!B2", 'UNFORMATTED_VALUE')).toEqual([['three']]);
  });
});

describe('pdf and refused conversions', () => {
  it('exports a PDF document', async () => {
    const id = await upload('Printable', 'text/csv', 'hello\n');
    const bytes = await exported(id, 'application/pdf');
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.subarray(-6).toString()).toContain('%%EOF');
  });

  it('refuses to convert a type that is not a spreadsheet, and to export to one it does not know', async () => {
    const word = await failureOf(upload('Doc', 'application/msword', 'x'));
    expect(word.response?.status).toBe(400);
    expect(word.response?.data.error.message).toBe('The requested conversion is not supported.');
    const id = await upload('Small', 'text/csv', 'a\n');
    const png = await failureOf(drive.files.export({ fileId: id, mimeType: 'image/png' }));
    expect(png.response?.status).toBe(400);
  });
});
