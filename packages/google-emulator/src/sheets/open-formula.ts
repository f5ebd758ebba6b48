/**
 * Formulas between Sheets' A1 syntax (`=SUM(A1:B2)`, `='My tab'!A1`) and OpenDocument's
 * OpenFormula (`of:=SUM([.A1:.B2])`, `of:=['My tab'.A1]`), for ods import and export.
 */

const STRING_LITERAL = /("(?:[^"]|"")*")/;
const CELL = String.raw`\$?[A-Za-z]{1,3}\$?\d+`;
const SHEET = String.raw`(?:'(?:[^']|'')*'|[A-Za-z_][\w.]*)`;
const A1_REFERENCE = new RegExp(
  String.raw`(?<![\w.'!])(?:(${SHEET})!)?(${CELL})(?::(${CELL}))?(?![\w(])`,
  'g',
);

export function toOpenFormula(formula: string): string {
  const body = formula
    .slice(1)
    .split(STRING_LITERAL)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part
            .replace(
              A1_REFERENCE,
              (_match, sheet: string | undefined, start: string, end: string | undefined) => {
                const prefix = sheet ? `$${sheet}` : '';
                return end ? `[${prefix}.${start}:${prefix}.${end}]` : `[${prefix}.${start}]`;
              },
            )
            .replaceAll(',', ';'),
    )
    .join('');
  return `of:=${body}`;
}

export function fromOpenFormula(formula: string): string {
  // Microsoft Excel writes ods formulas in its own A1 syntax under the `msoxl:` namespace.
  if (formula.startsWith('msoxl:')) return `=${formula.slice('msoxl:'.length).replace(/^=/, '')}`;
  // `oooc:` is OpenOffice.org 2's prefix for the same bracketed syntax as OpenFormula's `of:`.
  const body = formula.replace(/^(of|oooc):/, '').replace(/^=/, '');
  const converted = body
    .split(STRING_LITERAL)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part
            .replace(/\[([^\]]*)\]/g, (_match, reference: string) =>
              reference
                .split(':')
                .map((endpoint, position) => {
                  const dot = endpoint.lastIndexOf('.');
                  const sheet = endpoint.slice(0, dot).replace(/^\$/, '');
                  const cell = endpoint.slice(dot + 1);
                  return sheet && position === 0 ? `${sheet}!${cell}` : cell;
                })
                .join(':'),
            )
            .replaceAll(';', ','),
    )
    .join('');
  return `=${converted}`;
}
