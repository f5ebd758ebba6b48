import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * Zip packages built by hand from PKWARE's APPNOTE.TXT 6.3 §4.3 (local headers, central
 * directory, end record), so that import tests do not read what the emulator's own writer
 * (fflate) produced, and can build packages no honest writer would: an entry may bring its own
 * deflate stream and declare whatever size it likes in both its headers.
 */
export type ZipEntry =
  | { name: string; data: Buffer | Uint8Array; store?: boolean }
  | { name: string; deflated: Buffer; declaredSize: number };

// 2024-03-05 12:00:00 in MS-DOS date and time fields (APPNOTE §4.4.6).
const DOS_TIME = (12 << 11) | (0 << 5) | 0;
const DOS_DATE = ((2024 - 1980) << 9) | (3 << 5) | 5;
const UTF8_NAMES = 1 << 11;

export function zipPackage(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const store = 'data' in entry && entry.store === true;
    const body =
      'data' in entry ? (store ? Buffer.from(entry.data) : deflateRawSync(entry.data)) : entry.deflated;
    const size = 'data' in entry ? entry.data.length : entry.declaredSize;
    const crc = 'data' in entry ? crc32(entry.data) : 0;
    const common = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
      header.writeUInt16LE(UTF8_NAMES, at + 2);
      header.writeUInt16LE(store ? 0 : 8, at + 4);
      header.writeUInt16LE(DOS_TIME, at + 6);
      header.writeUInt16LE(DOS_DATE, at + 8);
      header.writeUInt32LE(crc, at + 10);
      header.writeUInt32LE(body.length, at + 14);
      header.writeUInt32LE(size, at + 18);
      header.writeUInt16LE(name.length, at + 22);
      header.writeUInt16LE(0, at + 24); // no extra field
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by: MS-DOS, 2.0
    common(central, 6);
    // comment length, disk number, internal and external attributes stay 0
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A raw deflate stream that inflates to `megabytes` MB of zeros, built without deflating them:
 * one MB deflated and fully flushed (byte-aligned, no references back) repeated, then an empty
 * final block. About a kilobyte per megabyte.
 */
export function deflatedZeros(megabytes: number): Buffer {
  const megabyte = deflateRawSync(Buffer.alloc(1024 * 1024), { finishFlush: constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array<Buffer>(megabytes).fill(megabyte), Buffer.from([0x03, 0x00])]);
}
