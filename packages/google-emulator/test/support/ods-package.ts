import { crc32, deflateRawSync } from 'node:zlib';

/**
 * An OpenDocument spreadsheet package built by hand from the specifications, so that import tests
 * do not read what the emulator's own writer (fflate) produced: ODF 1.3 Part 2 §3.3 (a zip whose
 * first entry is `mimetype`, stored uncompressed, no extra field), §3.2 (`META-INF/manifest.xml`),
 * and PKWARE's APPNOTE.TXT 6.3 §4.3 for the zip records (local headers, central directory, end
 * record). Entries other than `mimetype` are deflated with node:zlib.
 */
export function odsPackage(contentXml: string, mimeType = 'application/vnd.oasis.opendocument.spreadsheet') {
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">\n' +
    ` <manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="${mimeType}"/>\n` +
    ' <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>\n' +
    '</manifest:manifest>\n';
  return zip([
    { name: 'mimetype', data: Buffer.from(mimeType, 'ascii'), store: true },
    { name: 'content.xml', data: Buffer.from(contentXml, 'utf8'), store: false },
    { name: 'META-INF/manifest.xml', data: Buffer.from(manifest, 'utf8'), store: false },
  ]);
}

interface Entry {
  name: string;
  data: Buffer;
  store: boolean;
}

// 2024-03-05 12:00:00 in MS-DOS date and time fields (APPNOTE §4.4.6).
const DOS_TIME = (12 << 11) | (0 << 5) | 0;
const DOS_DATE = ((2024 - 1980) << 9) | (3 << 5) | 5;
const UTF8_NAMES = 1 << 11;

function zip(entries: Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const body = entry.store ? entry.data : deflateRawSync(entry.data);
    const common = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
      header.writeUInt16LE(UTF8_NAMES, at + 2);
      header.writeUInt16LE(entry.store ? 0 : 8, at + 4);
      header.writeUInt16LE(DOS_TIME, at + 6);
      header.writeUInt16LE(DOS_DATE, at + 8);
      header.writeUInt32LE(crc32(entry.data), at + 10);
      header.writeUInt32LE(body.length, at + 14);
      header.writeUInt32LE(entry.data.length, at + 18);
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

/** The first entry of a zip as its local header describes it (to check the `mimetype` rule). */
export function firstZipEntry(bytes: Buffer) {
  if (bytes.readUInt32LE(0) !== 0x04034b50) throw new Error('not a zip local file header');
  const compression = bytes.readUInt16LE(8);
  const size = bytes.readUInt32LE(18);
  const nameLength = bytes.readUInt16LE(26);
  const extraLength = bytes.readUInt16LE(28);
  const name = bytes.subarray(30, 30 + nameLength).toString('utf8');
  const start = 30 + nameLength + extraLength;
  return { name, compression, extraLength, data: bytes.subarray(start, start + size).toString('utf8') };
}
