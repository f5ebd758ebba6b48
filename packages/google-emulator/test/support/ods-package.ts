import { zipPackage } from './zip-package.ts';

/**
 * An OpenDocument spreadsheet package built by hand from the specifications, so that import tests
 * do not read what the emulator's own writer (fflate) produced: ODF 1.3 Part 2 §3.3 (a zip whose
 * first entry is `mimetype`, stored uncompressed, no extra field), §3.2 (`META-INF/manifest.xml`),
 * and PKWARE's APPNOTE.TXT 6.3 §4.3 for the zip records (written by `zipPackage`). Entries other
 * than `mimetype` are deflated with node:zlib.
 */
export function odsPackage(contentXml: string, mimeType = 'application/vnd.oasis.opendocument.spreadsheet') {
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">\n' +
    ` <manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="${mimeType}"/>\n` +
    ' <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>\n' +
    '</manifest:manifest>\n';
  return zipPackage([
    { name: 'mimetype', data: Buffer.from(mimeType, 'ascii'), store: true },
    { name: 'content.xml', data: Buffer.from(contentXml, 'utf8'), store: false },
    { name: 'META-INF/manifest.xml', data: Buffer.from(manifest, 'utf8'), store: false },
  ]);
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
