/**
 * The change view (docs/design.md §11.11): a journaled change's cells before and now side by side,
 * the ones it altered and those changed since marked, with Undo — for list_changes, undo_change and
 * the destructive tools' results — or, for a destructive call's dry run, the cells it would lose.
 * Its data comes only from the host: the tool's input and result, and the tools it calls through
 * the host (read_change_cells, visible to views only, and undo_change), which the host calls with
 * the person's own credential. The view holds no credential and may reach no origin.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { gridKeys } from '../shared/grid-keys.ts';
import { hostTheme, quietZod } from '../shared/host-theme.ts';
import { columnLetters, sheetUrl } from '../shared/sheet-link.ts';
import {
  type CellsAnswer,
  type Listed,
  type Loss,
  lossOf,
  type Result,
  resultText,
} from './change-result.ts';

quietZod();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const title = $('title');
const status = $('status');
const alert = $('alert');
const legend = $('legend');
const area = $('area');
const open = $<HTMLAnchorElement>('open');
const button = (id: string) => $<HTMLButtonElement>(id);
const undo = button('undo');
const force = button('force');
const keep = button('keep');
const prev = button('prev');
const next = button('next');
const other = button('other');
const before = $<HTMLTableElement>('before');
const after = $<HTMLTableElement>('after');
const list = $('list');
const cells = $('cells');

const app = new App({ name: 'Sheetgate change', version: '1.0.0' });
let args: Record<string, unknown> = {};
/** What is shown: a change by id, or a dry run's loss; the area and the rows into it. */
let subject: { changeId?: string; wouldLose?: Loss; area: number; offset: number } | undefined;
let shown: CellsAnswer | undefined;
/** Offsets of the windows shown before this one, for "Previous rows". */
let earlier: number[] = [];

app.ontoolinput = (params) => {
  args = params.arguments ?? {};
};
app.ontoolresult = (result) => void start(result as Result);
app.onhostcontextchanged = hostTheme;

function say(element: HTMLElement, text: string) {
  element.textContent = text;
}

async function start(result: Result) {
  const answer = result.structuredContent;
  if (result.isError || !answer) {
    // undo_change refused: its words, and the change's cells with those changed since marked.
    refused(resultText(result));
    say(status, '');
    if (typeof args.changeId === 'string') await show({ changeId: args.changeId, area: 0, offset: 0 });
    return;
  }
  if (Array.isArray(answer.changes)) return listChanges(answer.changes as Listed[]);
  const text = resultText(result);
  say(status, text);
  if (answer.dryRun) {
    const wouldLose = lossOf(answer, args);
    if (wouldLose) return show({ wouldLose, area: 0, offset: 0 }, text);
    // An undo's dry run: the change it would undo.
    if (typeof answer.undoneChangeId === 'string')
      return show({ changeId: answer.undoneChangeId, area: 0, offset: 0 }, text);
    return;
  }
  const id = answer.changeId ?? answer.undoneChangeId;
  if (typeof id === 'string') await show({ changeId: id, area: 0, offset: 0 }, text);
}

/** list_changes: the changes, each with a button showing its cells; the newest shown first. */
function listChanges(changes: Listed[]) {
  list.hidden = false;
  say(status, changes.length ? '' : 'No changes found.');
  const body = $<HTMLTableElement>('changes').tBodies[0]!;
  body.replaceChildren();
  for (const change of changes) {
    const row = body.insertRow();
    const when = change.at.replace('T', ' ').slice(0, 16);
    const state = change.undoneAt ? 'Undone' : change.undoable ? 'Can be undone' : 'Cannot be undone';
    for (const text of [when, change.summary, change.credential.name || change.credential.kind, state])
      row.insertCell().textContent = text;
    const showButton = document.createElement('button');
    showButton.type = 'button';
    showButton.textContent = 'Show cells';
    // Told apart by ear: what it changed and when.
    showButton.setAttribute('aria-label', `Show the cells of: ${change.summary}, ${when}`);
    showButton.onclick = () => {
      for (const current of body.querySelectorAll('[aria-current]')) current.removeAttribute('aria-current');
      row.setAttribute('aria-current', 'true');
      void show({ changeId: change.changeId, area: 0, offset: 0 });
    };
    row.insertCell().append(showButton);
  }
  body.querySelector('button')?.click();
}

/** Reads and draws a window of cells through the host; `told` stays in the status line. */
async function show(wanted: NonNullable<typeof subject>, told = '') {
  subject = wanted;
  const answer = await call('read_change_cells', {
    ...(wanted.changeId ? { changeId: wanted.changeId } : { wouldLose: wanted.wouldLose }),
    area: wanted.area,
    offset: wanted.offset,
  });
  if (!answer || subject !== wanted) return;
  shown = answer.structuredContent as unknown as CellsAnswer;
  draw(shown, told);
}

/** Calls a tool through the host: its answer, or undefined with its refusal said. */
async function call(name: string, toolArgs: Record<string, unknown>) {
  try {
    const result = (await app.callServerTool({ name, arguments: toolArgs })) as Result;
    if (!result.isError) return result;
    say(alert, resultText(result));
    return name === 'undo_change' ? result : undefined;
  } catch (error) {
    say(alert, `The host could not call ${name}: ${(error as Error).message}`);
  }
}

function draw(answer: CellsAnswer, told: string) {
  title.textContent = answer.changeId ? `Change: ${answer.summary}` : `Dry run: ${answer.summary}`;
  open.href = sheetUrl(answer.spreadsheetId);
  open.hidden = false;
  undo.hidden = !answer.undoable || !force.hidden;
  const notes = [told];
  if (answer.undoneByChangeId) notes.push(`Undone by change ${answer.undoneByChangeId}.`);
  else if (answer.undoUnavailableReason) notes.push(answer.undoUnavailableReason);
  if (answer.note) notes.push(answer.note);
  say(status, notes.filter(Boolean).join(' '));
  const window = answer.window;
  cells.hidden = !window;
  if (!window) return;
  const count = answer.areas.length;
  area.textContent = `${window.range}${count > 1 ? ` (area ${(answer.area ?? 0) + 1} of ${count})` : ''}`;
  say(
    legend,
    [
      `${window.changed.length} marked ${window.changed.length === 1 ? 'cell' : 'cells'} ${answer.changeId ? 'altered' : 'would be lost'}`,
      window.changedSince.length
        ? `; ${window.changedSince.length} changed since, marked in Now (undo replaces them only when forced)`
        : '',
      window.wrote ? `; it wrote ${window.wrote}, the values shown are as now` : '',
      window.columnsCut
        ? `; the first ${window.before[0]?.length ?? 0} of ${window.areaColumns} columns`
        : '',
      window.after ? '.' : answer.changeId ? '. The cells were deleted.' : '. The cells would be deleted.',
    ].join(''),
  );
  $('after-caption').textContent = answer.changeId ? 'Now' : 'After';
  const changed = new Set(window.changed.map(([row, column]) => `${row},${column}`));
  const since = new Set(window.changedSince.map(([row, column]) => `${row},${column}`));
  grid(before, window, window.before, (key) => (changed.has(key) ? 'c' : ''));
  grid(after, window, window.after, (key) => (since.has(key) ? 's' : changed.has(key) ? 'c' : ''));
  const rows = window.before.length;
  prev.disabled = earlier.length === 0;
  next.disabled = window.nextOffset === null;
  other.hidden = count < 2;
  if (rows === 0) say(legend, 'No cells in this part of the change.');
  // Which window is drawn, for whoever waits on it (the bench).
  cells.dataset.drawn = window.range;
}

const MARK = { c: 'altered', s: 'changed since' } as Record<string, string>;

/** One side's cells as a grid: column letters, row numbers, marked cells saying so to screen readers. */
function grid(
  table: HTMLTableElement,
  window: NonNullable<CellsAnswer['window']>,
  values: Array<Array<string | number | boolean | null>> | null,
  mark: (key: string) => string,
) {
  const caption = table.caption;
  table.replaceChildren(...(caption ? [caption] : []));
  table.hidden = !values;
  if (!values) return;
  const width = window.before[0]?.length ?? 0;
  const head = table.createTHead().insertRow();
  head.append(element('th', ''));
  for (let column = 0; column < width; column++) {
    const th = element('th', columnLetters(window.left + column));
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  values.forEach((line, index) => {
    const row = body.insertRow();
    const th = element('th', String(window.top + index + 1));
    th.scope = 'row';
    row.append(th);
    for (let column = 0; column < width; column++) {
      const value = line[column];
      // Text only: a cell holding HTML shows it as written, never as markup.
      const td = element('td', value === null || value === undefined ? '' : String(value));
      td.tabIndex = -1;
      td.dataset.a1 = `${columnLetters(window.left + column)}${window.top + index + 1}`;
      if (value === null) td.className = 'o';
      if (typeof value === 'number') td.classList.add('n');
      const kind = mark(`${index},${column}`);
      if (kind) {
        td.classList.add(kind);
        td.append(element('span', ` (${MARK[kind]})`, 'sr'));
      }
      row.append(td);
    }
  });
  const first = body.querySelector('td');
  if (first) first.tabIndex = 0;
}

function element<K extends 'th' | 'td' | 'span'>(tag: K, text: string, className = '') {
  const made = document.createElement(tag);
  made.textContent = text;
  if (className) made.className = className;
  return made;
}

/** Shows a refusal; where undo_change offers `force` (cells changed since), Undo anyway beside it. */
function refused(text: string) {
  say(alert, text);
  const offered = /force: true/.test(text);
  force.hidden = keep.hidden = !offered;
  if (offered) undo.hidden = true;
}

async function undoShown(forced: boolean) {
  if (!shown?.changeId || !subject) return;
  undo.disabled = force.disabled = true;
  say(alert, '');
  say(status, 'Undoing…');
  const result = await call('undo_change', { changeId: shown.changeId, ...(forced ? { force: true } : {}) });
  undo.disabled = force.disabled = false;
  if (result?.isError) {
    say(status, '');
    refused(resultText(result));
    (force.hidden ? alert : force).focus();
    return;
  }
  force.hidden = keep.hidden = true;
  if (!result) return;
  // The list row of the change shown says so.
  const row = document.querySelector('#changes [aria-current]') as HTMLTableRowElement | null;
  if (row?.cells[3]) row.cells[3].textContent = 'Undone';
  earlier = [];
  await show({ ...subject, offset: 0 }, resultText(result));
  status.focus();
}

undo.onclick = () => void undoShown(false);
force.onclick = () => void undoShown(true);
keep.onclick = () => {
  force.hidden = keep.hidden = true;
  say(alert, '');
  say(status, 'Nothing was undone: the later edits are kept.');
  undo.hidden = !shown?.undoable;
  status.focus();
};
next.onclick = () => {
  if (!subject || shown?.window?.nextOffset == null) return;
  earlier.push(subject.offset);
  void show({ ...subject, offset: shown.window.nextOffset });
};
prev.onclick = () => {
  if (subject && earlier.length) void show({ ...subject, offset: earlier.pop()! });
};
other.onclick = () => {
  if (!subject || !shown) return;
  earlier = [];
  void show({ ...subject, area: ((shown.area ?? 0) + 1) % shown.areas.length, offset: 0 });
};
open.onclick = (event) => {
  event.preventDefault();
  void app.openLink({ url: open.href });
};
gridKeys(before);
gridKeys(after);

void app.connect().then(() => {
  const context = app.getHostContext();
  if (context) hostTheme(context);
});
