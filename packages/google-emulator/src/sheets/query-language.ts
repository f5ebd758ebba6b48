/**
 * The Google Visualization API query language, as Sheets' QUERY function reads its second argument
 * (https://developers.google.com/chart/interactive/docs/querylanguage, and QUERY's help,
 * https://support.google.com/docs/answer/3093343): clauses `select`, `where`, `group by`, `pivot`,
 * `order by`, `limit`, `offset`, `label`, `format`, `options`, in that order, keywords in any case.
 * Written by hand: npm holds no maintained parser of this language (its reference implementation
 * is Google's Java library, google-visualization-java), and the grammar is small.
 */

export type QueryValue = number | string | boolean | null;

export type Aggregation = 'avg' | 'count' | 'max' | 'min' | 'sum';

export type Comparison =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'contains'
  | 'starts with'
  | 'ends with'
  | 'matches'
  | 'like';

export type Expression =
  | { kind: 'column'; id: string }
  | { kind: 'literal'; value: QueryValue }
  | { kind: 'aggregate'; aggregation: Aggregation; argument: Expression }
  | { kind: 'call'; name: string; args: Expression[] }
  | { kind: 'arithmetic'; operator: '+' | '-' | '*' | '/'; left: Expression; right: Expression }
  | { kind: 'compare'; operator: Comparison; left: Expression; right: Expression }
  | { kind: 'isNull'; negated: boolean; operand: Expression }
  | { kind: 'logical'; operator: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'not'; operand: Expression };

export interface Query {
  /** Undefined for `select *` or no select clause: every column. */
  select?: Expression[];
  where?: Expression;
  groupBy: Expression[];
  pivot: Expression[];
  orderBy: Array<{ expression: Expression; descending: boolean }>;
  limit?: number;
  offset: number;
  /** Labels and formats by the expression's text (`textOf`). */
  labels: Map<string, string>;
  formats: Map<string, string>;
}

/** A query Sheets refuses, with the reason Google's engine gives (`PARSE_ERROR: …`, `NO_COLUMN: F`). */
export class QueryError extends Error {}

const AGGREGATIONS = new Set<string>(['avg', 'count', 'max', 'min', 'sum']);
/** Scalar functions of the language (https://developers.google.com/chart/interactive/docs/querylanguage#scalar_functions). */
export const SCALAR_FUNCTIONS = new Set([
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'millisecond',
  'quarter',
  'dayofweek',
  'now',
  'datediff',
  'todate',
  'upper',
  'lower',
]);
const CLAUSES = [
  'select',
  'where',
  'group',
  'pivot',
  'order',
  'limit',
  'offset',
  'label',
  'format',
  'options',
];

type Token =
  | { type: 'word'; text: string; at: number }
  | { type: 'id'; text: string; at: number }
  | { type: 'number'; value: number; text: string; at: number }
  | { type: 'string'; value: string; text: string; at: number }
  | { type: 'symbol'; text: string; at: number }
  | { type: 'end'; text: string; at: number };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const rest = text.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    const number = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(rest);
    const quoted = /^(?:'([^']*)'|"([^"]*)")/.exec(rest);
    const backquoted = /^`([^`]*)`/.exec(rest);
    const symbol = /^(?:<=|>=|!=|<>|[=<>*+\-/(),])/.exec(rest);
    if (word) tokens.push({ type: 'word', text: word[0], at });
    else if (number) tokens.push({ type: 'number', value: Number(number[0]), text: number[0], at });
    else if (quoted)
      tokens.push({ type: 'string', value: quoted[1] ?? quoted[2] ?? '', text: quoted[0], at });
    else if (backquoted) tokens.push({ type: 'id', text: backquoted[1] ?? '', at });
    else if (symbol) tokens.push({ type: 'symbol', text: symbol[0] === '<>' ? '!=' : symbol[0], at });
    else throw parseError(rest.slice(0, 1), at);
    at += (word ?? number ?? quoted ?? backquoted ?? symbol)?.[0].length ?? 1;
  }
  tokens.push({ type: 'end', text: '<EOF>', at });
  return tokens;
}

function parseError(found: string, at: number): QueryError {
  return new QueryError(`PARSE_ERROR: Encountered "${found}" at line 1, column ${at + 1}.`);
}

export function parseQuery(text: string): Query {
  const tokens = tokenize(text);
  let position = 0;
  const peek = (offset = 0): Token => tokens[Math.min(position + offset, tokens.length - 1)] as Token;
  const next = (): Token => {
    const token = peek();
    position = Math.min(position + 1, tokens.length - 1);
    return token;
  };
  const isWord = (word: string, offset = 0) => {
    const token = peek(offset);
    return token.type === 'word' && token.text.toLowerCase() === word;
  };
  const fail = (token: Token = peek()): never => {
    throw parseError(token.text, token.at);
  };
  const expectWord = (word: string) => (isWord(word) ? next() : fail());
  const expectSymbol = (symbol: string) => {
    const token = next();
    if (token.type !== 'symbol' || token.text !== symbol) fail(token);
  };
  const isSymbol = (symbol: string) => peek().type === 'symbol' && peek().text === symbol;

  const primary = (): Expression => {
    const token = next();
    if (token.type === 'number') return { kind: 'literal', value: token.value };
    if (token.type === 'string') return { kind: 'literal', value: token.value };
    if (token.type === 'id') return { kind: 'column', id: token.text };
    if (token.type === 'symbol' && token.text === '(') {
      const inner = expression();
      expectSymbol(')');
      return inner;
    }
    if (token.type === 'symbol' && token.text === '-') {
      const operand = primary();
      if (operand.kind === 'literal' && typeof operand.value === 'number')
        return { kind: 'literal', value: -operand.value };
      return { kind: 'arithmetic', operator: '-', left: { kind: 'literal', value: 0 }, right: operand };
    }
    if (token.type !== 'word') return fail(token);
    const word = token.text.toLowerCase();
    if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
    if (word === 'null') return { kind: 'literal', value: null };
    const literal = peek();
    if ((word === 'date' || word === 'datetime' || word === 'timeofday') && literal.type === 'string') {
      next();
      return { kind: 'literal', value: dateLiteral(word, literal) };
    }
    if (isSymbol('(')) {
      next();
      const args: Expression[] = [];
      if (AGGREGATIONS.has(word)) {
        const argument = expression();
        expectSymbol(')');
        return { kind: 'aggregate', aggregation: word as Aggregation, argument };
      }
      if (!SCALAR_FUNCTIONS.has(word)) return fail(token);
      if (!isSymbol(')')) {
        args.push(expression());
        while (isSymbol(',')) {
          next();
          args.push(expression());
        }
      }
      expectSymbol(')');
      return { kind: 'call', name: word, args };
    }
    if (CLAUSES.includes(word) || RESERVED.has(word)) return fail(token);
    return { kind: 'column', id: token.text };
  };
  const product = (): Expression => {
    let left = primary();
    while (isSymbol('*') || isSymbol('/')) {
      const operator = next().text as '*' | '/';
      left = { kind: 'arithmetic', operator, left, right: primary() };
    }
    return left;
  };
  const sum = (): Expression => {
    let left = product();
    while (isSymbol('+') || isSymbol('-')) {
      const operator = next().text as '+' | '-';
      left = { kind: 'arithmetic', operator, left, right: product() };
    }
    return left;
  };
  const comparison = (): Expression => {
    const left = sum();
    const token = peek();
    if (token.type === 'symbol' && ['=', '!=', '<', '<=', '>', '>='].includes(token.text)) {
      next();
      return { kind: 'compare', operator: token.text as Comparison, left, right: sum() };
    }
    if (isWord('is')) {
      next();
      const negated = isWord('not');
      if (negated) next();
      expectWord('null');
      return { kind: 'isNull', negated, operand: left };
    }
    for (const operator of ['contains', 'matches', 'like'] as const)
      if (isWord(operator)) {
        next();
        return { kind: 'compare', operator, left, right: sum() };
      }
    if ((isWord('starts') || isWord('ends')) && isWord('with', 1)) {
      const operator = isWord('starts') ? 'starts with' : 'ends with';
      position += 2;
      return { kind: 'compare', operator, left, right: sum() };
    }
    return left;
  };
  const negation = (): Expression => {
    if (isWord('not')) {
      next();
      return { kind: 'not', operand: negation() };
    }
    return comparison();
  };
  const conjunction = (): Expression => {
    let left = negation();
    while (isWord('and')) {
      next();
      left = { kind: 'logical', operator: 'and', left, right: negation() };
    }
    return left;
  };
  const expression = (): Expression => {
    let left = conjunction();
    while (isWord('or')) {
      next();
      left = { kind: 'logical', operator: 'or', left, right: conjunction() };
    }
    return left;
  };
  const list = <T>(item: () => T): T[] => {
    const items = [item()];
    while (isSymbol(',')) {
      next();
      items.push(item());
    }
    return items;
  };
  const count = (): number => {
    const token = next();
    if (token.type !== 'number' || !Number.isInteger(token.value) || token.value < 0) return fail(token);
    return token.value;
  };
  const pairs = (into: Map<string, string>) => {
    for (const [target, text] of list(() => {
      const target = expression();
      const token = next();
      if (token.type !== 'string') return fail(token);
      return [target, token.value] as const;
    }))
      into.set(textOf(target), text);
  };

  const query: Query = {
    groupBy: [],
    pivot: [],
    orderBy: [],
    offset: 0,
    labels: new Map(),
    formats: new Map(),
  };
  let clause = 0;
  const at = (word: string) => {
    const index = CLAUSES.indexOf(word);
    if (!isWord(word)) return false;
    // Google requires the clauses in the documented order, each at most once.
    if (index < clause) fail();
    clause = index + 1;
    next();
    return true;
  };
  if (at('select')) {
    if (isSymbol('*')) next();
    else if (!CLAUSES.some((word) => isWord(word)) && peek().type !== 'end') query.select = list(expression);
  }
  if (at('where')) query.where = expression();
  if (at('group')) {
    expectWord('by');
    query.groupBy = list(expression);
  }
  if (at('pivot')) query.pivot = list(expression);
  if (at('order')) {
    expectWord('by');
    query.orderBy = list(() => {
      const expression_ = expression();
      let descending = false;
      if (isWord('asc') || isWord('desc')) descending = next().text.toLowerCase() === 'desc';
      return { expression: expression_, descending };
    });
  }
  if (at('limit')) query.limit = count();
  if (at('offset')) query.offset = count();
  if (at('label')) pairs(query.labels);
  if (at('format')) pairs(query.formats);
  if (at('options')) list(() => next());
  if (peek().type !== 'end') fail();
  return query;
}

const RESERVED = new Set(['and', 'or', 'not', 'by', 'asc', 'desc', 'is', 'null']);

/**
 * The serial number (days since 1899-12-30, as Sheets keeps dates) of a `date 'yyyy-MM-dd'`,
 * `datetime 'yyyy-MM-dd HH:mm:ss[.sss]'` or `timeofday 'HH:mm:ss[.sss]'` literal.
 */
function dateLiteral(kind: string, token: Token & { type: 'string' }): number {
  const time = (text: string | undefined) => {
    const parts = /^(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(text ?? '');
    if (!parts) throw new QueryError(`PARSE_ERROR: Invalid ${kind} literal ${token.text}.`);
    const [, hours, minutes, seconds, millis] = parts;
    return (
      (Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(millis ?? 0) / 1000) / 86400
    );
  };
  if (kind === 'timeofday') return time(token.value);
  const [day, clock] = token.value.trim().split(/\s+/);
  const parts = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(day ?? '');
  if (!parts || (kind === 'date') !== (clock === undefined))
    throw new QueryError(`PARSE_ERROR: Invalid ${kind} literal ${token.text}.`);
  const serial =
    (Date.UTC(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3])) - SERIAL_EPOCH) / 86_400_000;
  return kind === 'date' ? serial : serial + time(clock);
}

export const SERIAL_EPOCH = Date.UTC(1899, 11, 30);

/** An expression written back as the language writes it: the key of its label and format. */
export function textOf(expression: Expression): string {
  switch (expression.kind) {
    case 'column':
      return expression.id;
    case 'literal':
      return typeof expression.value === 'string' ? `'${expression.value}'` : String(expression.value);
    case 'aggregate':
      return `${expression.aggregation}(${textOf(expression.argument)})`;
    case 'call':
      return `${expression.name}(${expression.args.map(textOf).join(', ')})`;
    case 'arithmetic':
    case 'compare':
    case 'logical':
      return `${textOf(expression.left)} ${expression.operator} ${textOf(expression.right)}`;
    case 'isNull':
      return `${textOf(expression.operand)} is ${expression.negated ? 'not ' : ''}null`;
    case 'not':
      return `not ${textOf(expression.operand)}`;
  }
}

export function hasAggregate(expression: Expression): boolean {
  switch (expression.kind) {
    case 'aggregate':
      return true;
    case 'call':
      return expression.args.some(hasAggregate);
    case 'arithmetic':
    case 'compare':
    case 'logical':
      return hasAggregate(expression.left) || hasAggregate(expression.right);
    case 'isNull':
    case 'not':
      return hasAggregate(expression.operand);
    default:
      return false;
  }
}

/** The columns an expression reads, outside its aggregations. */
export function columnsOutsideAggregates(expression: Expression): string[] {
  switch (expression.kind) {
    case 'column':
      return [expression.id];
    case 'call':
      return expression.args.flatMap(columnsOutsideAggregates);
    case 'arithmetic':
    case 'compare':
    case 'logical':
      return [...columnsOutsideAggregates(expression.left), ...columnsOutsideAggregates(expression.right)];
    case 'isNull':
    case 'not':
      return columnsOutsideAggregates(expression.operand);
    default:
      return [];
  }
}
