/**
 * OpenDocument spreadsheet (ods) import and export: a zip (fflate, MIT) holding `content.xml`
 * (parsed with fast-xml-parser, MIT). Cells carry their value type (float, percentage, currency,
 * date, time, boolean, string) and formulas in OpenFormula; styles other than value types are
 * not carried.
 */
import { XMLParser } from 'fast-xml-parser';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { googleErrors } from '../google-error.ts';
import type { CellData, CellRows, NumberFormat, SpreadsheetContents, SpreadsheetModel } from './model.ts';
import { DEFAULT_PATTERNS, serialFromParts } from './number-format.ts';
import { fromOpenFormula, toOpenFormula } from './open-formula.ts';
import { exportCells } from './workbook-cells.ts';

const ODS_MIME_TYPE = 'application/vnd.oasis.opendocument.spreadsheet';
const MS_PER_DAY = 86_400_000;
/**
 * Bounds on what one upload may unfold into, all in memory: Google's own limits are 10 million
 * cells per spreadsheet and 18,278 columns (ZZZ); the emulator stops at a million stored cells
 * and refuses a `content.xml` declared larger than 128 MB (a zip bomb).
 */
const MAX_CELLS = 1_000_000;
const MAX_COLUMNS = 18_278;
const MAX_CONTENT_BYTES = 128 * 1024 * 1024;

type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };

export function importOds(bytes: Buffer): SpreadsheetContents['sheets'] {
  let content: Uint8Array | undefined;
  let declaredSize = 0;
  try {
    content = unzipSync(new Uint8Array(bytes), {
      filter: (file) => {
        if (file.name !== 'content.xml') return false;
        declaredSize = file.originalSize;
        return file.originalSize <= MAX_CONTENT_BYTES;
      },
    })['content.xml'];
  } catch {
    content = undefined;
  }
  if (declaredSize > MAX_CONTENT_BYTES)
    throw googleErrors.badRequest('The ods file is too large: content.xml is over 128 MB.');
  if (!content) throw googleErrors.badRequest('The ods file could not be read: content.xml is missing.');
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
  });
  const document = parser.parse(Buffer.from(content).toString('utf8')) as XmlNode[];
  const tables = findAll(document, 'table:table');
  let stored = 0;
  const store = (count: number) => {
    stored += count;
    if (stored > MAX_CELLS)
      throw googleErrors.badRequest(`The ods file has more than ${MAX_CELLS} cells with values.`);
  };
  return tables.map((table) => {
    const rows: CellRows = [];
    let row = 0;
    for (const rowNode of findAll(children(table), 'table:table-row')) {
      const repeatRows = repeatCount(attributes(rowNode)['table:number-rows-repeated']);
      let column = 0;
      const cells: Array<CellData | undefined> = [];
      for (const cellNode of children(rowNode)) {
        const name = tagName(cellNode);
        if (name !== 'table:table-cell' && name !== 'table:covered-table-cell') continue;
        const repeatColumns = repeatCount(attributes(cellNode)['table:number-columns-repeated']);
        const cell = name === 'table:table-cell' ? importCell(cellNode) : undefined;
        if (cell) {
          if (column + repeatColumns > MAX_COLUMNS)
            throw googleErrors.badRequest(`The ods file has more than ${MAX_COLUMNS} columns.`);
          store(repeatColumns * repeatRows);
          for (let i = 0; i < repeatColumns; i++) cells[column + i] = structuredClone(cell);
        }
        column += repeatColumns;
      }
      // Trailing empty rows are often repeated a million times; only rows with cells are stored.
      if (cells.length > 0) for (let i = 0; i < repeatRows; i++) rows[row + i] = structuredClone(cells);
      row += repeatRows;
    }
    return { title: attributes(table)['table:name'] ?? 'Sheet1', rows };
  });
}

/** `table:number-*-repeated`: a positive whole number (ODF 1.3 Part 3 §19.615, §19.617). */
function repeatCount(value: string | undefined): number {
  if (value === undefined) return 1;
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1)
    throw googleErrors.badRequest(
      `The ods file could not be read: bad repeat count "${value.slice(0, 20)}".`,
    );
  return count;
}

function tagName(node: XmlNode): string {
  return Object.keys(node).find((key) => key !== ':@') ?? '';
}

function children(node: XmlNode): XmlNode[] {
  const value = node[tagName(node)];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

function attributes(node: XmlNode): Record<string, string> {
  return node[':@'] ?? {};
}

function findAll(nodes: XmlNode[], name: string): XmlNode[] {
  const found: XmlNode[] = [];
  for (const node of nodes) {
    if (tagName(node) === name) found.push(node);
    else found.push(...findAll(children(node), name));
  }
  return found;
}

function textOf(node: XmlNode): string {
  return findAll(children(node), 'text:p')
    .map((paragraph) => flatText(paragraph))
    .join('\n');
}

function flatText(node: XmlNode): string {
  if ('#text' in node) return String(node['#text']);
  const name = tagName(node);
  if (name === 'text:s') return ' '.repeat(Number(attributes(node)['text:c'] ?? 1));
  if (name === 'text:tab') return '\t';
  if (name === 'text:line-break') return '\n';
  return children(node).map(flatText).join('');
}

function importCell(node: XmlNode): CellData | undefined {
  const attrs = attributes(node);
  const type = attrs['office:value-type'];
  const formula = attrs['table:formula'];
  const cell: CellData = {};
  let numberFormat: NumberFormat | undefined;
  if (formula) cell.userEnteredValue = { formulaValue: fromOpenFormula(formula) };
  switch (type) {
    case 'float':
    case 'percentage':
    case 'currency': {
      const value = Number(attrs['office:value'] ?? Number.NaN);
      if (!Number.isFinite(value)) {
        const text = textOf(node);
        if (text !== '') cell.userEnteredValue ??= { stringValue: text };
        break;
      }
      cell.userEnteredValue ??= { numberValue: value };
      if (type === 'percentage') numberFormat = { type: 'PERCENT', pattern: '0.00%' };
      if (type === 'currency')
        numberFormat = { type: 'CURRENCY', pattern: DEFAULT_PATTERNS.CURRENCY as string };
      break;
    }
    case 'date': {
      const value = attrs['office:date-value'] ?? '';
      const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?/.exec(value);
      if (match) {
        const [, y, mo, d, h, mi, s] = match;
        cell.userEnteredValue ??= {
          numberValue: serialFromParts(
            Number(y),
            Number(mo),
            Number(d),
            Number(h ?? 0),
            Number(mi ?? 0),
            Number(s ?? 0),
          ),
        };
        numberFormat =
          h && h + mi + s !== '000000'
            ? { type: 'DATE_TIME', pattern: 'yyyy-mm-dd H:mm:ss' }
            : { type: 'DATE', pattern: 'yyyy-mm-dd' };
      }
      break;
    }
    case 'time': {
      const match = /^PT(\d+)H(\d+)M(\d+(?:\.\d+)?)S$/.exec(attrs['office:time-value'] ?? '');
      if (match) {
        cell.userEnteredValue ??= {
          numberValue: (Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3])) / 86_400,
        };
        numberFormat = { type: 'TIME', pattern: DEFAULT_PATTERNS.TIME as string };
      }
      break;
    }
    case 'boolean':
      cell.userEnteredValue ??= { boolValue: attrs['office:boolean-value'] === 'true' };
      break;
    default: {
      // A writer may give a string cell's value as office:string-value instead of paragraphs.
      const text = attrs['office:string-value'] ?? textOf(node);
      if (text !== '') cell.userEnteredValue ??= { stringValue: text };
    }
  }
  if (numberFormat) cell.userEnteredFormat = { numberFormat };
  return Object.keys(cell).length > 0 ? cell : undefined;
}

const xmlEscape = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char] as string,
  );

export function exportOds(spreadsheet: SpreadsheetModel): Buffer {
  const tables = spreadsheet.sheets.map((sheet) => {
    const byRow = new Map<number, ReturnType<typeof exportCells>>();
    for (const cell of exportCells(spreadsheet, sheet)) {
      const line = byRow.get(cell.row) ?? [];
      line.push(cell);
      byRow.set(cell.row, line);
    }
    const lastRow = Math.max(-1, ...byRow.keys());
    const rowsXml: string[] = [];
    for (let row = 0; row <= lastRow; row++) {
      const cells = (byRow.get(row) ?? []).sort((a, b) => a.column - b.column);
      let column = 0;
      let xml = '';
      for (const cell of cells) {
        if (cell.column > column)
          xml += `<table:table-cell table:number-columns-repeated="${cell.column - column}"/>`;
        xml += cellXml(cell);
        column = cell.column + 1;
      }
      rowsXml.push(`<table:table-row>${xml || '<table:table-cell/>'}</table:table-row>`);
    }
    return `<table:table table:name="${xmlEscape(sheet.properties.title)}">${rowsXml.join('')}</table:table>`;
  });
  const content =
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
    'xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2">' +
    `<office:body><office:spreadsheet>${tables.join('')}</office:spreadsheet></office:body></office:document-content>`;
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">' +
    `<manifest:file-entry manifest:full-path="/" manifest:media-type="${ODS_MIME_TYPE}"/>` +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
    '</manifest:manifest>';
  // OpenDocument requires `mimetype` first and stored uncompressed.
  const zipped = zipSync({
    mimetype: [strToU8(ODS_MIME_TYPE), { level: 0 }],
    'content.xml': strToU8(content),
    'META-INF/manifest.xml': strToU8(manifest),
  });
  return Buffer.from(zipped);
}

function cellXml(cell: ReturnType<typeof exportCells>[number]): string {
  const entered = cell.cell.userEnteredValue;
  const result = cell.effective.effectiveValue;
  const formula =
    entered?.formulaValue != null ? ` table:formula="${xmlEscape(toOpenFormula(entered.formulaValue))}"` : '';
  const text = `<text:p>${xmlEscape(cell.text)}</text:p>`;
  if (result?.numberValue != null) {
    const value = result.numberValue;
    switch (cell.effective.numberFormat?.type) {
      case 'DATE':
      case 'DATE_TIME': {
        const iso = new Date(Math.round(value * MS_PER_DAY) + Date.UTC(1899, 11, 30))
          .toISOString()
          .slice(0, 19);
        return `<table:table-cell office:value-type="date" office:date-value="${iso}"${formula}>${text}</table:table-cell>`;
      }
      case 'PERCENT':
        return `<table:table-cell office:value-type="percentage" office:value="${value}"${formula}>${text}</table:table-cell>`;
      case 'CURRENCY':
        return `<table:table-cell office:value-type="currency" office:currency="USD" office:value="${value}"${formula}>${text}</table:table-cell>`;
      default:
        return `<table:table-cell office:value-type="float" office:value="${value}"${formula}>${text}</table:table-cell>`;
    }
  }
  if (result?.boolValue != null) {
    return `<table:table-cell office:value-type="boolean" office:boolean-value="${result.boolValue}"${formula}>${text}</table:table-cell>`;
  }
  if (result?.stringValue != null || result?.errorValue != null || formula) {
    return `<table:table-cell office:value-type="string"${formula}>${text}</table:table-cell>`;
  }
  return '<table:table-cell/>';
}
