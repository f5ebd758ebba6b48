/**
 * How many bytes a zip package really unpacks to, counted up to a limit: the xlsx import's guard
 * against zip bombs, run before ExcelJS (through jszip) inflates the whole package in memory.
 *
 * The sizes a zip declares are only claims, so after a cheap first gate on them (a package that
 * declares more than the limit is refused without inflating anything) every entry is inflated
 * by node:zlib into nothing, counting the bytes that come out and stopping as soon as the total
 * passes the limit: memory stays at one chunk, and a bomb costs about `limit` bytes of work.
 *
 * The central directory is parsed by hand (PKWARE APPNOTE.TXT 6.3 §4.3): fflate, our zip
 * library, inflates into buffers sized by the declared sizes and cannot say what a stream really
 * holds, and its streaming reader follows the local headers, which need not agree with the
 * central directory that jszip reads. The walk finds the entries the way jszip 3 does (the last
 * end record in the buffer, directory records read while their signature repeats, each entry's
 * data found through its local header, method and compressed size taken from the directory), and
 * refuses what jszip would read by other rules (zip64, data before the archive, which shifts its
 * offsets): a package this walk cannot read is not handed on.
 */
import { createInflateRaw } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** Inflated bytes per step: the most that is ever held, and how far past the limit a count may run. */
const CHUNK_BYTES = 256 * 1024;

interface Entry {
  method: number;
  declaredSize: number;
  dataStart: number;
  dataLength: number;
}

/**
 * The bytes `zip` unpacks to, or, as soon as they pass `limit`, some count over `limit`. Throws
 * a plain Error when the package is not a zip this module can walk (or a stream is corrupt).
 */
export async function unpackedZipBytes(zip: Buffer, limit: number): Promise<number> {
  const entries = zipEntries(zip);
  const declared = entries.reduce((total, entry) => total + entry.declaredSize, 0);
  if (declared > limit) return declared;
  let total = 0;
  for (const entry of entries) {
    const data = zip.subarray(entry.dataStart, entry.dataStart + entry.dataLength);
    total += entry.method === STORED ? data.length : await inflatedBytes(data, limit - total);
    if (total > limit) return total;
  }
  return total;
}

/** Inflates a raw deflate stream into nothing, counting; stops once the count passes `budget`. */
async function inflatedBytes(deflated: Buffer, budget: number): Promise<number> {
  // Some writers mark empty entries (directories) deflated with no data; there is nothing to inflate.
  if (deflated.length === 0) return 0;
  const inflater = createInflateRaw({ chunkSize: CHUNK_BYTES });
  inflater.end(deflated);
  let total = 0;
  for await (const chunk of inflater as AsyncIterable<Buffer>) {
    total += chunk.length;
    // Leaving the loop destroys the inflater; nothing more is inflated.
    if (total > budget) break;
  }
  return total;
}

function zipEntries(zip: Buffer): Entry[] {
  const end = zip.lastIndexOf(signature(END_OF_DIRECTORY));
  if (end < 0 || end + 22 > zip.length) throw new Error('not a zip: no end of central directory record.');
  const saturated =
    [4, 6, 8, 10].some((at) => zip.readUInt16LE(end + at) === 0xffff) ||
    [12, 16].some((at) => zip.readUInt32LE(end + at) === 0xffffffff);
  if (saturated) throw new Error('zip64 packages are not supported.');
  const directorySize = zip.readUInt32LE(end + 12);
  const directoryStart = zip.readUInt32LE(end + 16);
  if (directoryStart + directorySize !== end)
    throw new Error('the zip central directory is not where its end record says.');
  const entries: Entry[] = [];
  let at = directoryStart;
  while (at + 4 <= zip.length && zip.readUInt32LE(at) === DIRECTORY_ENTRY) {
    if (at + 46 > zip.length) throw new Error('the zip central directory is truncated.');
    const method = zip.readUInt16LE(at + 10);
    const dataLength = zip.readUInt32LE(at + 20);
    const declaredSize = zip.readUInt32LE(at + 24);
    const localHeader = zip.readUInt32LE(at + 42);
    if ([dataLength, declaredSize, localHeader].includes(0xffffffff))
      throw new Error('zip64 packages are not supported.');
    if (method !== STORED && method !== DEFLATED)
      throw new Error(`zip compression method ${method} is not supported.`);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (localHeader + 30 > zip.length || zip.readUInt32LE(localHeader) !== LOCAL_HEADER)
      throw new Error('a zip entry has no local header where the directory says.');
    const dataStart =
      localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    if (at > zip.length || dataStart + dataLength > zip.length) throw new Error('the zip is truncated.');
    entries.push({ method, declaredSize, dataStart, dataLength });
  }
  return entries;
}

function signature(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value);
  return bytes;
}
