/**
 * The range view (docs/design.md §11.11): read_range's page as a small sheet. Its data comes only
 * from the host — the tool's input and result, and the tools it calls through the host
 * (read_range for the next page, read_cell_details for formulas and Google's error messages) —
 * never from Sheetgate or Google directly: the view holds no credential and may reach no origin.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { gridKeys } from '../shared/grid-keys.ts';
import { hostTheme, quietZod } from '../shared/host-theme.ts';
import { columnLetters, sheetUrl } from '../shared/sheet-link.ts';
import { pageOf, type RangeResult, type ReadArgs } from './range-page.ts';

quietZod();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const title = $('title');
const status = $('status');
const grid = $<HTMLTableElement>('grid');
const prev = $<HTMLButtonElement>('prev');
const next = $<HTMLButtonElement>('next');
const open = $<HTMLAnchorElement>('open');

const app = new App({ name: 'Sheetgate range', version: '1.0.0' });
let args: ReadArgs | undefined;
/** Offsets of the pages shown before this one, for "Previous rows". */
const earlier: number[] = [];
let shown: { offset: number; nextOffset: number | null } | undefined;
/** Bumped per page shown: details arriving for an older page are dropped. */
let generation = 0;

const ERROR_TEXT = /^#(DIV\/0!|N\/A|REF!|VALUE!|NAME\?|NUM!|NULL!|ERROR!|SPILL!|CALC!)$/;
const NUMBER_TEXT = /^[-+(]?[$€£¥]?\d[\d,]*(\.\d+)?%?\)?$/;

app.ontoolinput = (params) => {
  args = params.arguments as ReadArgs;
};
app.ontoolresult = (result) => show(result);
app.onhostcontextchanged = hostTheme;

function show(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }) {
  if (result.isError || !result.structuredContent) {
    const text = (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
    status.textContent = text ?? 'The range could not be read.';
    return;
  }
  const page = pageOf(result.structuredContent as RangeResult, args);
  const mine = ++generation;
  shown = page;
  title.textContent = page.range;
  if (args) {
    open.href = sheetUrl(args.spreadsheetId);
    open.hidden = false;
  }
  const width = Math.max(1, ...page.values.map((row) => row.length));
  grid.replaceChildren();
  const head = grid.createTHead().insertRow();
  head.append(cell('th'));
  head.cells[0]!.append(cell('span', 'Row', 'sr'));
  for (let column = 0; column < width; column++) {
    const th = cell('th', columnLetters(page.left + column));
    th.scope = 'col';
    head.append(th);
  }
  const body = grid.createTBody();
  page.values.forEach((values, index) => {
    const row = body.insertRow();
    const th = cell('th', String(page.top + index + 1));
    th.scope = 'row';
    row.append(th);
    for (let column = 0; column < width; column++) {
      const value = values[column] ?? '';
      const text = String(value);
      const td = cell('td', text, typeof value === 'number' || NUMBER_TEXT.test(text) ? 'n' : '');
      td.tabIndex = -1;
      td.dataset.a1 = `${columnLetters(page.left + column)}${page.top + index + 1}`;
      if (ERROR_TEXT.test(text)) describe(td, 'e', text);
      else if (text.startsWith('=')) describe(td, 'f', text);
      row.append(td);
    }
  });
  const first = grid.querySelector<HTMLElement>('td');
  if (first) first.tabIndex = 0;
  const rows = page.values.length;
  status.textContent = rows
    ? `Rows ${page.top + 1}–${page.top + rows}${page.nextOffset === null ? ', the end of the data' : ''}.`
    : 'No data in this part of the range.';
  prev.disabled = earlier.length === 0;
  next.disabled = page.nextOffset === null;
  if (rows && args) void details(page.a1, mine);
}

function cell<K extends 'th' | 'td' | 'span'>(tag: K, text = '', className = '') {
  const element = document.createElement(tag);
  // Text only: a cell holding HTML shows it as written, never as markup.
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

/** Marks a cell and says why, to a screen reader (described by) and on hover or focus (#tip). */
function describe(td: HTMLTableCellElement, kind: 'e' | 'f', text: string) {
  td.classList.add(kind);
  let tip = td.querySelector<HTMLElement>('.tip');
  if (!tip) {
    tip = document.createElement('span');
    tip.className = 'tip';
    tip.id = `tip-${td.dataset.a1}`;
    td.append(tip);
    td.setAttribute('aria-describedby', tip.id);
  }
  tip.textContent = text;
}

/** Formulas and Google's error messages of the page's cells, through the host (read_cell_details). */
async function details(range: string, mine: number) {
  let offset: number | null = 0;
  // At most five pages of details: a page of read_range holds at most 2,000 rows.
  for (let asked = 0; offset !== null && asked < 5; asked++) {
    const result = await app
      .callServerTool({
        name: 'read_cell_details',
        arguments: {
          spreadsheetId: args!.spreadsheetId,
          range,
          fields: ['formulas', 'errors'],
          offset,
          limit: 1000,
        },
      })
      .catch(() => undefined);
    const found = result?.structuredContent as
      | {
          cells: Array<{ cell: string; formula?: string; error?: { message: string } }>;
          nextOffset: number | null;
        }
      | undefined;
    if (mine !== generation || result?.isError || !found) return;
    for (const detail of found.cells) {
      const td = grid.querySelector<HTMLTableCellElement>(`td[data-a1="${detail.cell.replace(/^.*!/, '')}"]`);
      if (!td) continue;
      if (detail.error)
        describe(td, 'e', `${detail.error.message}${detail.formula ? `\n${detail.formula}` : ''}`);
      else if (detail.formula) describe(td, 'f', detail.formula);
    }
    offset = found.nextOffset;
  }
}

async function page(offset: number, back: boolean) {
  if (!args || !shown) return;
  prev.disabled = next.disabled = true;
  status.textContent = 'Reading rows…';
  if (!back) earlier.push(shown.offset);
  try {
    show(await app.callServerTool({ name: 'read_range', arguments: { ...args, offset } }));
  } catch (error) {
    status.textContent = `The rows could not be read: ${(error as Error).message}`;
    if (!back) earlier.pop();
    prev.disabled = earlier.length === 0;
    next.disabled = shown.nextOffset === null;
  }
}

next.onclick = () => shown?.nextOffset != null && void page(shown.nextOffset, false);
prev.onclick = () => earlier.length && void page(earlier.pop()!, true);
open.onclick = (event) => {
  event.preventDefault();
  void app.openLink({ url: open.href });
};

gridKeys(grid);

// The tooltip: a marked cell's words beside it while hovered or focused.
const tip = document.createElement('div');
tip.id = 'tip';
tip.hidden = true;
tip.setAttribute('aria-hidden', 'true');
document.body.append(tip);
const showTip = (event: Event) => {
  const text = (event.target as HTMLElement).closest?.('td')?.querySelector('.tip')?.textContent;
  tip.hidden = !text;
  if (!text) return;
  tip.textContent = text;
  const box = (event.target as HTMLElement).getBoundingClientRect();
  tip.style.left = `${Math.max(0, Math.min(box.left, innerWidth - 320))}px`;
  tip.style.top = `${box.bottom + 2}px`;
};
grid.addEventListener('mouseover', showTip);
grid.addEventListener('focusin', showTip);
grid.addEventListener('mouseleave', () => {
  tip.hidden = true;
});
grid.addEventListener('focusout', () => {
  tip.hidden = true;
});

void app.connect().then(() => {
  const context = app.getHostContext();
  if (context) hostTheme(context);
});
