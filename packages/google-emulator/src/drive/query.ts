import type { DriveFile } from '../contracts.ts';
import { GoogleApiError } from '../google-error.ts';

/** A compiled `q`: whether a file of the caller's Drive matches. */
export type FileQuery = (file: DriveFile, context: QueryContext) => boolean;

export interface QueryContext {
  callerEmail: string;
  /** A native file's searchable text (a spreadsheet's cells), for `fullText`. */
  textOf?: (file: DriveFile) => string;
}

type Token =
  | { kind: 'string'; value: string; at: number }
  | { kind: 'word'; value: string; at: number }
  | { kind: 'operator'; value: string; at: number }
  | { kind: 'paren'; value: '(' | ')'; at: number };

export function invalidQuery(detail: string): GoogleApiError {
  return new GoogleApiError({
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: `Invalid Value: the query (q) is not valid: ${detail}`,
    reason: 'invalid',
    location: 'q',
    locationType: 'parameter',
  });
}

/**
 * Parses Drive v3's search grammar (https://developers.google.com/drive/api/guides/ref-search-terms)
 * for the terms the emulator keeps: name, mimeType, fullText, trashed, starred, createdTime,
 * modifiedTime, and `'…' in owners|parents|writers|readers`, combined with and / or / not and
 * parentheses. A bad query throws a 400 `invalid` GoogleApiError naming what was wrong.
 */
export function parseFileQuery(q: string): FileQuery {
  const tokens = tokenize(q);
  let position = 0;
  const peek = () => tokens[position];
  const isWord = (token: Token | undefined, word: string) =>
    token?.kind === 'word' && token.value.toLowerCase() === word;
  const describe = (token: Token | undefined) =>
    token ? `"${token.value}" at character ${token.at + 1}` : 'the end of the query';

  const parseOr = (): FileQuery => {
    const terms = [parseAnd()];
    while (isWord(peek(), 'or')) {
      position += 1;
      terms.push(parseAnd());
    }
    return terms.length === 1 ? terms[0]! : (file, context) => terms.some((term) => term(file, context));
  };
  const parseAnd = (): FileQuery => {
    const terms = [parseNot()];
    while (isWord(peek(), 'and')) {
      position += 1;
      terms.push(parseNot());
    }
    return terms.length === 1 ? terms[0]! : (file, context) => terms.every((term) => term(file, context));
  };
  const parseNot = (): FileQuery => {
    if (isWord(peek(), 'not')) {
      position += 1;
      const inner = parseNot();
      return (file, context) => !inner(file, context);
    }
    return parsePrimary();
  };
  const parsePrimary = (): FileQuery => {
    const token = peek();
    if (token?.kind === 'paren' && token.value === '(') {
      position += 1;
      const inner = parseOr();
      const closing = peek();
      if (closing?.kind !== 'paren' || closing.value !== ')')
        throw invalidQuery(`expected ")" but found ${describe(closing)}`);
      position += 1;
      return inner;
    }
    if (token?.kind === 'string') {
      position += 1;
      if (!isWord(peek(), 'in')) throw invalidQuery(`expected "in" after ${describe(token)}`);
      position += 1;
      const collection = peek();
      if (collection?.kind !== 'word')
        throw invalidQuery(`expected a collection after "in" but found ${describe(collection)}`);
      position += 1;
      return membership(token.value, collection.value, collection.at);
    }
    if (token?.kind !== 'word') throw invalidQuery(`expected a search term but found ${describe(token)}`);
    position += 1;
    const operatorToken = peek();
    const operator =
      operatorToken?.kind === 'operator'
        ? operatorToken.value
        : isWord(operatorToken, 'contains')
          ? 'contains'
          : undefined;
    if (!operator)
      throw invalidQuery(`expected an operator after "${token.value}" but found ${describe(operatorToken)}`);
    position += 1;
    const value = peek();
    if (value?.kind !== 'string' && value?.kind !== 'word') {
      throw invalidQuery(`expected a value after "${operator}" but found ${describe(value)}`);
    }
    position += 1;
    return comparison(token.value, operator, value);
  };

  if (tokens.length === 0) return () => true;
  const query = parseOr();
  if (position < tokens.length) throw invalidQuery(`unexpected ${describe(peek())}`);
  return query;
}

function comparison(field: string, operator: string, value: Token): FileQuery {
  const stringValue = () => {
    if (value.kind !== 'string') throw invalidQuery(`${field} needs a quoted string, not ${value.value}`);
    return value.value;
  };
  const allowed = (operators: string[]) => {
    if (!operators.includes(operator)) {
      throw invalidQuery(
        `${field} does not support the operator "${operator}" (use ${operators.join(', ')})`,
      );
    }
  };
  switch (field) {
    case 'name':
    case 'mimeType': {
      allowed(['=', '!=', 'contains']);
      const expected = stringValue();
      const read = (file: DriveFile) => (field === 'name' ? file.name : file.mimeType);
      if (operator === '=') return (file) => read(file) === expected;
      if (operator === '!=') return (file) => read(file) !== expected;
      return field === 'name'
        ? (file) => nameContains(file.name, expected)
        : (file) => file.mimeType.includes(expected);
    }
    case 'fullText': {
      allowed(['contains']);
      const expected = stringValue().toLowerCase();
      return (file, context) =>
        file.name.toLowerCase().includes(expected) ||
        (file.content !== undefined &&
          file.mimeType.startsWith('text/') &&
          file.content.toString('utf8').toLowerCase().includes(expected)) ||
        (context.textOf?.(file).toLowerCase().includes(expected) ?? false);
    }
    case 'trashed':
    case 'starred': {
      allowed(['=', '!=']);
      const expected = booleanValue(field, value);
      const read = (file: DriveFile) => (field === 'trashed' ? file.trashed : false);
      return operator === '=' ? (file) => read(file) === expected : (file) => read(file) !== expected;
    }
    case 'modifiedTime':
    case 'createdTime': {
      allowed(['=', '!=', '<', '<=', '>', '>=']);
      const text = stringValue();
      const expected = Date.parse(text);
      if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) || Number.isNaN(expected)) {
        throw invalidQuery(
          `${field} needs an RFC 3339 date-time such as '2024-01-31T12:00:00Z', not '${text}'`,
        );
      }
      const read = (file: DriveFile) =>
        Date.parse(field === 'modifiedTime' ? file.modifiedTime : file.createdTime);
      const compare: Record<string, (a: number, b: number) => boolean> = {
        '=': (a, b) => a === b,
        '!=': (a, b) => a !== b,
        '<': (a, b) => a < b,
        '<=': (a, b) => a <= b,
        '>': (a, b) => a > b,
        '>=': (a, b) => a >= b,
      };
      const test = compare[operator]!;
      return (file) => test(read(file), expected);
    }
    default:
      throw invalidQuery(`unknown search term "${field}"`);
  }
}

function membership(value: string, collection: string, at: number): FileQuery {
  switch (collection) {
    case 'owners':
    case 'writers':
    case 'readers':
      // Every file in the emulator has its owner as its only reader and writer.
      return (file, context) =>
        file.ownerEmail === (value === 'me' ? context.callerEmail : value.toLowerCase());
    case 'parents':
      return (file, context) =>
        file.parents.includes(value) ||
        (file.parents.length === 0 &&
          (file.driveId === undefined
            ? value === 'root' && file.ownerEmail === context.callerEmail
            : value === file.driveId));
    default:
      throw invalidQuery(`unknown collection "${collection}" at character ${at + 1}`);
  }
}

function booleanValue(field: string, value: Token): boolean {
  const text = value.value.toLowerCase();
  if (value.kind === 'word' && (text === 'true' || text === 'false')) return text === 'true';
  throw invalidQuery(
    `${field} needs true or false, not ${value.kind === 'string' ? `'${value.value}'` : value.value}`,
  );
}

/**
 * Drive's `name contains` matches prefixes of words only: "HelloWorld" matches 'Hello' but not
 * 'World' (documented in ref-search-terms). Case-insensitive.
 */
function nameContains(name: string, expected: string): boolean {
  const haystack = name.toLowerCase();
  const needle = expected.toLowerCase();
  for (let index = haystack.indexOf(needle); index >= 0; index = haystack.indexOf(needle, index + 1)) {
    if (index === 0 || !/[\p{L}\p{N}]/u.test(haystack[index - 1]!)) return true;
  }
  return false;
}

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const char = q[i]!;
    if (/\s/.test(char)) {
      i += 1;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: 'paren', value: char, at: i });
      i += 1;
    } else if (char === "'" || char === '"') {
      const start = i;
      let value = '';
      i += 1;
      while (i < q.length && q[i] !== char) {
        if (q[i] === '\\') {
          const escaped = q[i + 1];
          if (escaped === undefined) break;
          value += escaped;
          i += 2;
        } else {
          value += q[i];
          i += 1;
        }
      }
      if (i >= q.length) throw invalidQuery(`unterminated string starting at character ${start + 1}`);
      i += 1;
      tokens.push({ kind: 'string', value, at: start });
    } else if ('=!<>'.includes(char)) {
      const two = q.slice(i, i + 2);
      const operator = ['!=', '<=', '>='].includes(two) ? two : char;
      if (operator === '!') throw invalidQuery(`unexpected "!" at character ${i + 1}`);
      tokens.push({ kind: 'operator', value: operator, at: i });
      i += operator.length;
    } else if (/[\w.]/.test(char)) {
      const start = i;
      while (i < q.length && /[\w.:-]/.test(q[i]!)) i += 1;
      tokens.push({ kind: 'word', value: q.slice(start, i), at: start });
    } else {
      throw invalidQuery(`unexpected "${char}" at character ${i + 1}`);
    }
  }
  return tokens;
}
