import { AsyncLocalStorage } from 'node:async_hooks';
import type { sheets_v4 } from 'googleapis';
import type { ToolDeps } from '../../tools/kit/tool-deps.ts';
import { footprintOf, isUnsupported } from './footprint.ts';
import { type TooLarge, tooLargeBeforeWrite } from './state-bounds.ts';
import type { Footprint, SheetStateImage, StateImage } from './state-image.ts';
import { imageOf } from './state-image-of.ts';
import {
  onlyAddsTabs,
  planState,
  readState,
  responseImage,
  type StatePlan,
  type TabGrid,
} from './state-read.ts';

/**
 * What a write tool's call changed through `spreadsheets.batchUpdate`, captured on the way
 * (docs/design.md §11.8): each batchUpdate's footprint with its before-image (one read first) and
 * after-image (the batchUpdate's own response), or why undo is not available.
 */
export interface StateCapture {
  steps: Array<{ spreadsheetId: string; footprint: Footprint; before: StateImage; after: StateImage }>;
  /** Set once a batchUpdate of the call could not be captured: undo is not available, and why. */
  unavailable?: string;
  /** When that was the bounds (state-bounds.ts): the cells and ranges the entry names. */
  tooLarge?: TooLarge;
  /** Set once Google accepted a batchUpdate of the call: the spreadsheet changed, whatever follows. */
  changed?: boolean;
}

/**
 * The capture of the tool call under way. AsyncLocalStorage carries it from the journaling wrapper
 * (kit/journal-writes.ts) through the tool into the one shared batchUpdate (kit
 * spreadsheet-batch-update.ts) without a parameter threaded through every structure tool.
 */
const captures = new AsyncLocalStorage<StateCapture>();

/**
 * Runs a tool call within a capture. A call that throws still hands back what was captured: a
 * batchUpdate Google accepted before the failure changed the spreadsheet all the same.
 */
export async function runCapturing<T>(
  run: () => Promise<T>,
): Promise<{ capture: StateCapture } & ({ result: T } | { error: unknown })> {
  const capture: StateCapture = { steps: [] };
  try {
    return { capture, result: await captures.run(capture, run) };
  } catch (error) {
    return { capture, error };
  }
}

export function activeCapture(): StateCapture | undefined {
  return captures.getStore();
}

type Deps = Pick<ToolDeps, 'sheets' | 'callGoogle'>;

/**
 * A batchUpdate within a capture: the before-image of its footprint (one read; none when it only
 * adds tabs, which the reply names), then the batchUpdate asking for its after-image. Requests
 * whose footprint undo cannot take, or whose change is past what undo keeps by the before-image and
 * the requests (state-bounds.ts), are sent as they are and make the capture say why undo is not
 * available.
 */
export async function capturedBatchUpdate(
  deps: Deps,
  capture: StateCapture,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  requests: sheets_v4.Schema$Request[],
): Promise<sheets_v4.Schema$BatchUpdateSpreadsheetResponse> {
  const plain = async () => {
    const reply = await plainBatchUpdate(deps, userId, signal, spreadsheetId, requests);
    capture.changed = true;
    return reply;
  };
  const footprint = capture.unavailable ? undefined : footprintOf(requests);
  if (!footprint || isUnsupported(footprint)) {
    if (footprint) capture.unavailable = `Undo is not available: ${footprint.unsupported}.`;
    return plain();
  }
  if (capture.steps.some((step) => step.spreadsheetId !== spreadsheetId)) {
    capture.unavailable = 'Undo is not available: the call changed more than one spreadsheet.';
    return plain();
  }
  const plan = planState(footprint);
  const read = onlyAddsTabs(footprint)
    ? undefined
    : await readState(deps, userId, signal, spreadsheetId, plan);
  const tooLarge = read && tooLargeBeforeWrite(requests, footprint, read.image, read.tabs);
  if (tooLarge) {
    capture.unavailable = tooLarge.reason;
    capture.tooLarge = tooLarge;
    return plain();
  }
  const { reply, after } = await writeWithImage(
    deps,
    userId,
    signal,
    spreadsheetId,
    requests,
    plan,
    read?.tabs,
  );
  const added = new Set(addedTabs(reply).map((tab) => tab.sheetId));
  const before: StateImage = read?.image ?? {
    cells: [],
    dimensions: [],
    sheets: [],
    tabs: (after.tabs ?? []).filter((tab) => !added.has(tab.sheetId)),
  };
  capture.steps.push({ spreadsheetId, footprint, before, after });
  capture.changed = true;
  return reply;
}

export async function plainBatchUpdate(
  { sheets, callGoogle }: Deps,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  requests: sheets_v4.Schema$Request[],
): Promise<sheets_v4.Schema$BatchUpdateSpreadsheetResponse> {
  const { data } = await callGoogle(userId, signal, (request) =>
    sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } }, request),
  );
  return data;
}

/**
 * Sends requests with the response carrying the after-image of `plan` (ranges on `tabs`, the
 * before-read's; absent when nothing was read, then no ranges are asked). The reply comes back
 * without the image, as the tools know it.
 */
export async function writeWithImage(
  { sheets, callGoogle }: Deps,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  requests: sheets_v4.Schema$Request[],
  plan: StatePlan,
  tabs: readonly TabGrid[] | undefined,
): Promise<{ reply: sheets_v4.Schema$BatchUpdateSpreadsheetResponse; after: StateImage }> {
  const asked = tabs
    ? responseImage(plan, tabs, renamesIn(requests))
    : responseImage({ ...plan, ranges: [] }, [], new Map());
  const { data } = await callGoogle(userId, signal, (request) =>
    sheets.spreadsheets.batchUpdate(
      { spreadsheetId, fields: asked.fields, requestBody: { requests, ...asked.body } },
      request,
    ),
  );
  const { updatedSpreadsheet, ...reply } = data;
  const wholeTabs = asked.body.responseRanges === undefined;
  const after = imageOf(plan, updatedSpreadsheet ?? {}, wholeTabs);
  if (plan.footprint.addsTabs) {
    const listed = new Set((after.tabs ?? []).map((tab) => tab.sheetId));
    after.tabs = [...(after.tabs ?? []), ...addedTabs(reply).filter((tab) => !listed.has(tab.sheetId))];
  }
  return { reply, after };
}

/** New titles a batch gives tabs (the after-image's ranges name them so). */
function renamesIn(requests: readonly sheets_v4.Schema$Request[]): Map<number, string> {
  const renamed = new Map<number, string>();
  for (const request of requests) {
    const update = request.updateSheetProperties;
    const title = update?.properties?.title;
    if (title && /(^|,)\s*title\s*(,|$)/.test(update.fields ?? ''))
      renamed.set(update.properties?.sheetId ?? 0, title);
  }
  return renamed;
}

/** The tabs a batch's replies say it added: new tabs, copies, and charts on tabs of their own. */
export function addedTabs(
  reply: sheets_v4.Schema$BatchUpdateSpreadsheetResponse,
): Array<{ sheetId: number; title: string }> {
  const tabs: Array<{ sheetId: number; title: string }> = [];
  for (const each of reply.replies ?? []) {
    const properties = each.addSheet?.properties ?? each.duplicateSheet?.properties;
    if (properties?.sheetId != null)
      tabs.push({ sheetId: properties.sheetId, title: properties.title ?? '' });
    const position = each.addChart?.chart?.position ?? each.updateEmbeddedObjectPosition?.position;
    if (position?.sheetId != null && !position.overlayPosition)
      tabs.push({ sheetId: position.sheetId, title: '' });
  }
  return tabs;
}

/**
 * The call's change as one: its spreadsheet, the footprints together, and per part the earliest
 * before-image and the latest after-image. Undefined when nothing was captured.
 */
export function capturedChange(
  capture: StateCapture,
): { spreadsheetId: string; footprint: Footprint; before: StateImage; after: StateImage } | undefined {
  const [first] = capture.steps;
  if (!first) return undefined;
  if (capture.steps.length === 1) return first;
  const footprint: Footprint = {
    cells: capture.steps.flatMap((step) => step.footprint.cells),
    dimensions: capture.steps.flatMap((step) => step.footprint.dimensions),
    sheets: capture.steps.flatMap((step) => step.footprint.sheets),
    namedRanges: capture.steps.some((step) => step.footprint.namedRanges),
    addsTabs: capture.steps.some((step) => step.footprint.addsTabs),
  };
  const allTabsCells = [...new Set(capture.steps.flatMap((step) => step.footprint.allTabsCells ?? []))];
  if (allTabsCells.length > 0) footprint.allTabsCells = allTabsCells;
  // A tab one step added is no tab of the before-image, even when a later step read it.
  const added = new Set(
    capture.steps.flatMap((step) => {
      const was = new Set((step.before.tabs ?? []).map((tab) => tab.sheetId));
      return (step.after.tabs ?? []).filter((tab) => !was.has(tab.sheetId)).map((tab) => tab.sheetId);
    }),
  );
  const before = merged(capture.steps.map((step) => step.before));
  const after = merged(capture.steps.map((step) => step.after).reverse());
  if (before.tabs) before.tabs = before.tabs.filter((tab) => !added.has(tab.sheetId));
  return { spreadsheetId: first.spreadsheetId, footprint, before, after };
}

/** One image of several: each part as the first image holding it has it. */
function merged(images: StateImage[]): StateImage {
  const cells = new Map<string, StateImage['cells'][number]>();
  const dimensions = new Map<string, StateImage['dimensions'][number]>();
  const sheets = new Map<number, SheetStateImage>();
  const tabs = new Map<number, { sheetId: number; title: string }>();
  let namedRanges: StateImage['namedRanges'];
  for (const image of images) {
    for (const area of image.cells) {
      const key = `${area.sheetId}:${area.top}:${area.left}:${[...area.fields].sort().join(',')}`;
      if (!cells.has(key)) cells.set(key, area);
    }
    for (const span of image.dimensions) {
      const key = `${span.sheetId}:${span.dimension}:${span.start}`;
      if (!dimensions.has(key)) dimensions.set(key, span);
    }
    for (const sheet of image.sheets) sheets.set(sheet.sheetId, { ...sheet, ...sheets.get(sheet.sheetId) });
    for (const tab of image.tabs ?? []) if (!tabs.has(tab.sheetId)) tabs.set(tab.sheetId, tab);
    namedRanges ??= image.namedRanges;
  }
  return {
    cells: [...cells.values()],
    dimensions: [...dimensions.values()],
    sheets: [...sheets.values()],
    ...(namedRanges ? { namedRanges } : {}),
    ...(images.some((image) => image.tabs) ? { tabs: [...tabs.values()] } : {}),
  };
}
