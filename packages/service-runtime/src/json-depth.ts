/**
 * How deeply a JSON body may nest objects and arrays. Real bodies stay far below (an MCP
 * `tools/call` writing a grid is about 6 levels, client metadata 3); code that walks parsed JSON
 * recursively overflows the stack somewhere past a few thousand.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth`, read from the text before it
 * is parsed: one pass over the characters, no recursion and no allocation, so a hostile body costs
 * no more than its length. Brackets inside strings do not count. Text that is not JSON gets an
 * answer too; JSON.parse refuses it afterwards.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}
