import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { unpackedZipBytes } from '../src/sheets/zip-unpacked-size.ts';
import { deflatedZeros, zipPackage } from './support/zip-package.ts';

// The xlsx import's zip-bomb guard, with the limit lowered to 1 MB so the bombs stay small.
const MB = 1024 * 1024;
const LIMIT = MB;
/** How far past the limit a count may run before it stops (the module's inflate chunk). */
const CHUNK = 256 * 1024;

/** Where the zip's central directory starts, from its end record (no comment). */
const directoryStart = (zip: Buffer) => zip.readUInt32LE(zip.length - 22 + 16);

describe('unpackedZipBytes', () => {
  it('counts what an honest package unpacks to, stored and deflated entries alike', async () => {
    const zip = zipPackage([
      { name: 'stored.txt', data: Buffer.from('stored as is'), store: true },
      { name: 'deflated.bin', data: Buffer.alloc(300 * 1024, 7) },
      { name: 'empty', data: Buffer.alloc(0) },
      { name: 'folder/', deflated: Buffer.alloc(0), declaredSize: 0 },
    ]);
    expect(await unpackedZipBytes(zip, LIMIT)).toBe(12 + 300 * 1024);
  });

  it('counts an ExcelJS workbook to the sizes its entries hold', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Sheet1').addRow(['a', 1, true]);
    const zip = Buffer.from(await workbook.xlsx.writeBuffer());
    const sizes = Object.values(unzipSync(new Uint8Array(zip))).reduce(
      (total, data) => total + data.length,
      0,
    );
    expect(await unpackedZipBytes(zip, LIMIT)).toBe(sizes);
  });

  it('stops a deflate stream that inflates past the limit although its headers declare 1 KB', async () => {
    const bomb = zipPackage([{ name: 'bomb.bin', deflated: deflatedZeros(2), declaredSize: 1024 }]);
    expect(bomb.length).toBeLessThan(4096);
    const counted = await unpackedZipBytes(bomb, LIMIT);
    expect(counted).toBeGreaterThan(LIMIT);
    // It stops as soon as the count passes the limit, however far the stream would go.
    const big = zipPackage([{ name: 'bomb.bin', deflated: deflatedZeros(64), declaredSize: 1024 }]);
    const stopped = await unpackedZipBytes(big, LIMIT);
    expect(stopped).toBeGreaterThan(LIMIT);
    expect(stopped).toBeLessThanOrEqual(LIMIT + CHUNK);
  });

  it('spends one budget across entries, each under the limit on its own', async () => {
    const lie = (name: string) => ({
      name,
      deflated: deflateRawSync(Buffer.alloc(600 * 1024)),
      declaredSize: 1,
    });
    expect(await unpackedZipBytes(zipPackage([lie('a.bin')]), LIMIT)).toBe(600 * 1024);
    expect(await unpackedZipBytes(zipPackage([lie('a.bin'), lie('b.bin')]), LIMIT)).toBeGreaterThan(LIMIT);
  });

  it('counts a stored entry by its raw bytes, whatever size it declares', async () => {
    const zip = zipPackage([{ name: 'stored.bin', data: Buffer.alloc(2 * MB), store: true }]);
    // The declared size (central directory, offset 24) says 10 bytes.
    zip.writeUInt32LE(10, directoryStart(zip) + 24);
    expect(await unpackedZipBytes(zip, LIMIT)).toBe(2 * MB);
  });

  it('refuses by the declared sizes first, without inflating anything', async () => {
    // Not a deflate stream at all: only the declared 2 MB is read.
    const zip = zipPackage([
      { name: 'declared.bin', deflated: Buffer.from('not deflate'), declaredSize: 2 * MB },
    ]);
    expect(await unpackedZipBytes(zip, LIMIT)).toBe(2 * MB);
  });

  it('throws on packages it cannot walk the way jszip would', async () => {
    const honest = () => zipPackage([{ name: 'a.txt', data: Buffer.from('hello') }]);
    await expect(unpackedZipBytes(Buffer.from('not a zip'), LIMIT)).rejects.toThrow(/not a zip/);
    // Data before the archive: jszip would shift every offset.
    await expect(unpackedZipBytes(Buffer.concat([Buffer.from('junk'), honest()]), LIMIT)).rejects.toThrow(
      /central directory is not where/,
    );
    const bzip2 = honest();
    bzip2.writeUInt16LE(12, directoryStart(bzip2) + 10);
    await expect(unpackedZipBytes(bzip2, LIMIT)).rejects.toThrow(/compression method 12/);
    const zip64 = honest();
    zip64.writeUInt32LE(0xffffffff, directoryStart(zip64) + 20);
    await expect(unpackedZipBytes(zip64, LIMIT)).rejects.toThrow(/zip64/);
    const noLocalHeader = honest();
    noLocalHeader.writeUInt32LE(0, 0);
    await expect(unpackedZipBytes(noLocalHeader, LIMIT)).rejects.toThrow(/no local header/);
    const corrupt = zipPackage([
      { name: 'bad.bin', deflated: Buffer.from([0xff, 0xff, 0xff]), declaredSize: 3 },
    ]);
    await expect(unpackedZipBytes(corrupt, LIMIT)).rejects.toThrow();
  });
});
