/**
 * Ids as people have them: the URL of a spreadsheet, a Drive file or a folder, copied from the
 * browser, stands for its id. The URL is never fetched, only its path read, and only on Google's
 * own hosts, so a link elsewhere (or `javascript:`) is refused in words rather than taken apart.
 * A URL's `#gid=` (the tab it was showing) is not read: docs/design.md §11.2 says why.
 */
import { z } from 'zod';

/** What an id names; a URL of another kind of thing is refused, saying what it is. */
export type IdKind = 'spreadsheet' | 'file' | 'folder';

/** The longest text read as an id or a URL: a browser's URL of a spreadsheet is far shorter. */
export const MAX_ID_TEXT = 2_000;

const ID = /^[A-Za-z0-9_-]+$/;
const HOSTS = new Set(['docs.google.com', 'drive.google.com', 'sheets.google.com']);
/** The first path segment of a docs.google.com URL, and what it is the URL of. */
const EDITORS: Record<string, string> = {
  spreadsheets: 'spreadsheet',
  document: 'Google Docs document',
  presentation: 'Google Slides presentation',
  forms: 'Google Form',
  drawings: 'Google Drawing',
};

const NAMES: Record<IdKind, string> = { spreadsheet: 'spreadsheetId', file: 'fileId', folder: 'folderId' };

/** The id `text` is or whose URL it is, or the sentence saying why it is neither. */
export function idOf(text: string, kind: IdKind): { id: string } | { refusal: string } {
  const trimmed = text.trim();
  if (ID.test(trimmed)) return { id: trimmed };
  const url = parseUrl(trimmed);
  if (!url)
    return { refusal: `a ${NAMES[kind]} has only letters, digits, - and _ (or give the ${kind}'s URL)` };
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !HOSTS.has(url.hostname))
    return { refusal: `only a docs.google.com or drive.google.com URL is read for its ${NAMES[kind]}` };
  const named = namedIn(url);
  if (!named) return { refusal: `this URL names no ${kind}: give its id or its URL from the browser` };
  if (named.what === 'published')
    return { refusal: 'a published (/d/e/) link does not carry the spreadsheet id: give its edit URL' };
  const fits =
    kind === 'file' ||
    named.what === 'either' ||
    (kind === 'spreadsheet' ? named.what === 'spreadsheet' : named.what === 'folder');
  if (!fits) return { refusal: `this is the URL of a ${named.what}, not of a ${kind}` };
  return { id: named.id };
}

function parseUrl(text: string): URL | undefined {
  // A URL pasted without its scheme (`docs.google.com/spreadsheets/d/…`) is read as https.
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
  if (!URL.canParse(withScheme)) return undefined;
  const url = new URL(withScheme);
  return url.protocol === 'https:' && !text.includes('/') ? undefined : url;
}

/** The id a Google URL's path (or its `?id=`) names, and what kind of thing it is. */
function namedIn(url: URL): { id: string; what: string } | undefined {
  const segments = url.pathname.split('/').filter(Boolean);
  const folder = segments.indexOf('folders');
  if (folder >= 0) return idAt(segments[folder + 1], 'folder');
  const d = segments.indexOf('d');
  if (d >= 0) {
    if (segments[d + 1] === 'e') return idAt(segments[d + 2], 'published');
    const editor = url.hostname === 'drive.google.com' ? 'file' : EDITORS[segments[0] ?? ''];
    return idAt(segments[d + 1], editor === 'file' ? 'either' : editor);
  }
  // drive.google.com/open?id=<id> and …/uc?id=<id>: a file or a folder alike.
  return idAt(url.searchParams.get('id') ?? undefined, 'either');
}

function idAt(segment: string | undefined, what: string | undefined) {
  return segment && what && ID.test(segment) ? { id: segment, what } : undefined;
}

/**
 * An id input that takes the id or its URL and yields the id: in tools/list still a string (a
 * transform is not shown), checked as an id of `length` characters once read out of a URL.
 */
export function googleIdInput(kind: IdKind, length: { min: number; max: number }) {
  return (
    z
      .string()
      .min(length.min)
      .max(MAX_ID_TEXT, `a ${NAMES[kind]} or URL is at most ${MAX_ID_TEXT.toLocaleString('en')} characters`)
      // An issue that lets parsing go on, as a failed check does: a union (an id or "root") then
      // says this one rather than that no option matched.
      .transform((text, context) => {
        const read = idOf(text, kind);
        if ('refusal' in read) {
          context.issues.push({ code: 'custom', message: read.refusal, input: text, continue: true });
          return z.NEVER;
        }
        if (read.id.length < length.min || read.id.length > length.max) {
          context.issues.push({
            code: 'custom',
            message: `a ${NAMES[kind]} has ${length.min} to ${length.max} characters`,
            input: text,
            continue: true,
          });
          return z.NEVER;
        }
        return read.id;
      })
  );
}
