/**
 * Characters find_in_spreadsheet keeps on each side of a match: enough to see what the cell says
 * there. A cell holds up to 50,000 characters, and 500 whole cells would be an answer no model
 * can read (read_range pages such cells instead).
 */
export const SNIPPET_CONTEXT = 100;

/** A matched cell's text as returned: all of it, or the part around the match and its full length. */
export interface Snippet {
  value: string;
  /** Set only when `value` is cut: the cell's full length, in characters. */
  fullLength?: number;
}

/**
 * The part of `text` around its match at `index` (`length` characters long), with `…` where text
 * was left out; the whole text when it is short enough already. Never splits a surrogate pair.
 */
export function matchSnippet(text: string, index: number, length: number): Snippet {
  if (text.length <= length + 2 * SNIPPET_CONTEXT) return { value: text };
  // Case folding can change a text's length (rarely): keep the match's place inside the text.
  const at = Math.min(Math.max(0, index), text.length);
  let start = Math.max(0, at - SNIPPET_CONTEXT);
  let end = Math.min(text.length, at + length + SNIPPET_CONTEXT);
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start--;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
  return {
    value: `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`,
    fullLength: text.length,
  };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
