/**
 * A PDF rendering of a spreadsheet with PDFKit (MIT): one page (or more) per sheet, a grid of
 * formatted values in Helvetica. Google's PDF export is richer (fonts, formats, page setup); the
 * emulator's only promises a readable PDF of the values.
 */
import PDFDocument from 'pdfkit';
import type { SpreadsheetModel } from './model.ts';
import { formattedRows } from './workbook-cells.ts';

const COLUMN_WIDTH = 90;
const ROW_HEIGHT = 16;
const MARGIN = 36;

export function exportPdf(spreadsheet: SpreadsheetModel): Promise<Buffer> {
  const { sheets } = spreadsheet;
  const document = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: MARGIN,
    info: { Title: spreadsheet.properties.title },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    document.on('data', (chunk: Buffer) => chunks.push(chunk));
    document.on('end', () => resolve(Buffer.concat(chunks)));
    document.on('error', reject);
  });
  for (const [index, sheet] of sheets.entries()) {
    if (index > 0) document.addPage();
    document.font('Helvetica-Bold').fontSize(12).text(sheet.properties.title, MARGIN, MARGIN);
    document.font('Helvetica').fontSize(9);
    let y = MARGIN + 24;
    for (const row of formattedRows(spreadsheet, sheet)) {
      if (y + ROW_HEIGHT > document.page.height - MARGIN) {
        document.addPage();
        y = MARGIN;
      }
      for (const [column, text] of row.entries()) {
        const x = MARGIN + column * COLUMN_WIDTH;
        if (x + COLUMN_WIDTH > document.page.width - MARGIN) break;
        if (text)
          document.text(text, x + 2, y + 3, {
            width: COLUMN_WIDTH - 4,
            height: ROW_HEIGHT,
            lineBreak: false,
            ellipsis: true,
          });
      }
      y += ROW_HEIGHT;
    }
  }
  document.end();
  return done;
}
