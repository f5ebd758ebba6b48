import { MAX_WRITE_CELLS } from '../settings.ts';
import type { BodySketch } from './body-sketch.ts';

const count = (n: number) => n.toLocaleString('en-US');

/** `4 MiB`, `1.5 MiB`: a limit as people read it. */
export function mebibytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

/**
 * How many of the body's rows one call could carry: the room the rest of the call leaves under
 * `maxRequestBytes`, in rows of the body's average size, and no more than MAX_WRITE_CELLS at its
 * widest row; undefined when the body writes no rows.
 */
export function rowsThatFit(sketch: BodySketch, maxRequestBytes: number): number | undefined {
  if (sketch.rows === 0 || sketch.valuesBytes === 0) return undefined;
  const perRow = sketch.valuesBytes / sketch.rows;
  const room = maxRequestBytes - (sketch.bytes - sketch.valuesBytes);
  const byBytes = Math.floor(room / perRow);
  const byCells = sketch.widest > 0 ? Math.floor(MAX_WRITE_CELLS / sketch.widest) : byBytes;
  return Math.max(0, Math.min(byBytes, byCells));
}

/**
 * The tool error a tools/call past the body limit is answered with: its size, the limit, and for
 * a write how many of its rows fit in one call.
 */
export function callTooLargeText(sketch: BodySketch, maxRequestBytes: number): string {
  const over = `Nothing was done: this call is ${count(sketch.bytes)} bytes, over the ${mebibytes(maxRequestBytes)} (${count(maxRequestBytes)} bytes) one call may carry.`;
  const fit = rowsThatFit(sketch, maxRequestBytes);
  if (fit === undefined) return `${over} Send less in each call.`;
  const width = `${count(sketch.widest)} column${sketch.widest === 1 ? '' : 's'}`;
  const perRow = Math.ceil(sketch.valuesBytes / sketch.rows);
  if (fit === 0)
    return `${over} Its rows (${width}, about ${count(perRow)} bytes each) are too large for one call: write fewer columns per call.`;
  return `${over} At this width (${width}, about ${count(perRow)} bytes a row) about ${count(fit)} rows fit per call: send the ${count(sketch.rows)} rows in calls of at most that many (write_range from the next row, or append_rows).`;
}

/** The words of any other request past the limit (not a tool call, or not recognisably one). */
export function requestTooLargeText(bytes: number | undefined, maxRequestBytes: number): string {
  const size = bytes === undefined ? 'the body is' : `the body is ${count(bytes)} bytes,`;
  return `${size} over the ${mebibytes(maxRequestBytes)} one request may carry`;
}
