/**
 * What a request body too large to keep says of itself, learnt as it streams by: its size, the
 * JSON-RPC `id`, `method` and tool `name` of a single request, and the rows of the values it
 * writes (`arguments.values`, or every `arguments.data[].values`). Enough to answer a call past
 * the body limit with a tool error naming how many rows fit, holding none of it.
 */
export interface BodySketch {
  bytes: number;
  /** A single request's (not a batch's) id, when one was seen. */
  id?: string | number;
  method?: string;
  tool?: string;
  /** Rows of the values written, the widest of them, and the bytes the values take. */
  rows: number;
  widest: number;
  valuesBytes: number;
}

interface Frame {
  array: boolean;
  /** An object's member whose value comes (or came) last; undefined when too long to matter. */
  key: string | undefined;
  expectKey: boolean;
  /** An array's elements so far. */
  count: number;
  role: 'values' | 'row' | undefined;
  start: number;
}

/** Keys, ids, methods and names longer than this are not what is looked for. */
const MAX_CAPTURE = 256;
/** Deeper than this nothing looked for can be (a body this deep is refused anyway). */
const MAX_DEPTH = 64;
const [QUOTE, BACKSLASH, COMMA, COLON] = [0x22, 0x5c, 0x2c, 0x3a];
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [0x7b, 0x7d, 0x5b, 0x5d];

/** A scanner of JSON fed in chunks: `write` each, then `sketch`. Malformed JSON sketches less. */
export class BodySketcher {
  #bytes = 0;
  #stack: Frame[] = [];
  #batch = false;
  #inString = false;
  #escaped = false;
  #inScalar = false;
  /** Bytes of the string or scalar being kept, or undefined when it is not wanted. */
  #capture: number[] | undefined;
  #captureIsKey = false;
  #found: { id?: string | number; method?: string; tool?: string } = {};
  #rows = 0;
  #widest = 0;
  #valuesBytes = 0;

  write(chunk: Buffer): void {
    for (let index = 0; index < chunk.length; index++) this.#byte(chunk[index]!, this.#bytes + index);
    this.#bytes += chunk.length;
  }

  sketch(): BodySketch {
    if (this.#inScalar) this.#endScalar();
    const found = this.#batch ? {} : this.#found;
    return {
      bytes: this.#bytes,
      ...found,
      rows: this.#rows,
      widest: this.#widest,
      valuesBytes: this.#valuesBytes,
    };
  }

  #byte(byte: number, at: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#inString = false;
        this.#endString();
        return;
      }
      if (this.#capture && this.#capture.length <= MAX_CAPTURE) this.#capture.push(byte);
      return;
    }
    if (this.#inScalar) {
      if (isScalarByte(byte)) {
        if (this.#capture && this.#capture.length <= MAX_CAPTURE) this.#capture.push(byte);
        return;
      }
      this.#endScalar();
    }
    const top = this.#stack.at(-1);
    switch (byte) {
      case QUOTE:
        this.#inString = true;
        if (top && !top.array && top.expectKey) {
          this.#captureIsKey = true;
          this.#capture = [];
        } else {
          this.#valueStarts(top);
          this.#captureIsKey = false;
          this.#capture = this.#wanted() ? [] : undefined;
        }
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        this.#valueStarts(top);
        if (!top && byte === OPEN_ARRAY) this.#batch = true;
        this.#stack.push({
          array: byte === OPEN_ARRAY,
          key: undefined,
          expectKey: byte === OPEN_OBJECT,
          count: 0,
          role: byte === OPEN_ARRAY ? this.#arrayRole() : undefined,
          start: at,
        });
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY: {
        const closed = this.#stack.pop();
        if (closed?.role === 'row') this.#widest = Math.max(this.#widest, closed.count);
        if (closed?.role === 'values') {
          this.#rows += closed.count;
          this.#valuesBytes += at - closed.start + 1;
        }
        return;
      }
      case COMMA:
        if (top && !top.array) top.expectKey = true;
        return;
      case COLON:
        return;
      default:
        if (!isScalarByte(byte)) return;
        this.#valueStarts(top);
        this.#inScalar = true;
        this.#capture = this.#wanted() === 'id' ? [byte] : undefined;
    }
  }

  #valueStarts(top: Frame | undefined): void {
    if (top?.array) top.count++;
  }

  /** Which member of interest the value starting now is. */
  #wanted(): 'id' | 'method' | 'tool' | undefined {
    const [first, second] = this.#stack;
    if (this.#stack.length === 1 && !first!.array) {
      if (first!.key === 'id') return 'id';
      if (first!.key === 'method') return 'method';
    }
    if (this.#stack.length === 2 && first!.key === 'params' && !second!.array && second!.key === 'name')
      return 'tool';
    return undefined;
  }

  /** The role of an array opening now: the values written, one of their rows, or neither. */
  #arrayRole(): Frame['role'] {
    const stack = this.#stack;
    if (stack.length > MAX_DEPTH) return undefined;
    if (stack.at(-1)?.role === 'values') return 'row';
    const inArguments = (depth: number) =>
      stack[0]?.key === 'params' && stack[1]?.key === 'arguments' && !stack[depth - 1]?.array;
    // params.arguments.values
    if (stack.length === 3 && inArguments(3) && stack[2]!.key === 'values') return 'values';
    // params.arguments.data[i].values
    if (
      stack.length === 5 &&
      inArguments(3) &&
      stack[2]!.key === 'data' &&
      stack[3]!.array &&
      !stack[4]!.array &&
      stack[4]!.key === 'values'
    )
      return 'values';
    return undefined;
  }

  #endString(): void {
    const text =
      this.#capture && this.#capture.length <= MAX_CAPTURE ? decodeString(this.#capture) : undefined;
    const top = this.#stack.at(-1);
    if (this.#captureIsKey) {
      if (top) {
        top.key = text;
        top.expectKey = false;
      }
    } else if (text !== undefined) {
      const wanted = this.#wanted();
      if (wanted) this.#found[wanted] = text;
    }
    this.#capture = undefined;
  }

  #endScalar(): void {
    this.#inScalar = false;
    if (this.#capture && this.#capture.length <= MAX_CAPTURE) {
      const id = Number(Buffer.from(this.#capture).toString('latin1'));
      if (Number.isFinite(id)) this.#found.id = id;
    }
    this.#capture = undefined;
  }
}

/** Numbers and the literals true, false and null. */
function isScalarByte(byte: number): boolean {
  const digit = byte >= 0x30 && byte <= 0x39;
  const lowercase = byte >= 0x61 && byte <= 0x7a;
  // - + . E
  return digit || lowercase || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x45;
}

/** A JSON string's bytes between its quotes, unescaped; undefined when not a valid string. */
function decodeString(bytes: number[]): string | undefined {
  try {
    return JSON.parse(`"${Buffer.from(bytes).toString('utf8')}"`) as string;
  } catch {
    return undefined;
  }
}
