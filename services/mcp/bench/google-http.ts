/**
 * `node bench/google-http.ts`: the CPU one `spreadsheets.values.get` costs in this process through
 * googleapis and gaxios, with gaxios doing the HTTP over Node's own fetch and over google-fetch.ts
 * (undici's `request`), in alternating rounds so that other work on the machine weighs on both
 * alike. A child process answers 20 rows of values at once; its CPU is not counted. ROUNDS and
 * CALLS set the rounds and the calls per side in each.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { google } from 'googleapis';
import { createGoogleFetch } from '../src/google/google-fetch.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const CALLS = Number(process.env.CALLS ?? 200);

if (process.argv[2] === 'answer') {
  const values = Array.from({ length: 20 }, (_, row) => [`a${row}`, `b${row}`, String(row)]);
  const body = JSON.stringify({ range: 'Sheet1!A1:C20', majorDimension: 'ROWS', values });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', vary: 'Origin' });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['answer']);
  const port = await new Promise<number>((resolve) =>
    child.once('message', (port) => resolve(port as number)),
  );
  const rootUrl = `http://127.0.0.1:${port}/`;
  const sides = [
    { name: "Node's fetch", sheets: google.sheets({ version: 'v4', rootUrl, fetchImplementation: fetch }) },
    {
      name: 'google-fetch.ts (undici request)',
      sheets: google.sheets({ version: 'v4', rootUrl, fetchImplementation: createGoogleFetch() }),
    },
  ];
  const call = (sheets: (typeof sides)[number]['sheets']) =>
    sheets.spreadsheets.values.get(
      { spreadsheetId: 'bench', range: 'Sheet1!A1:C20' },
      { headers: { Authorization: 'Bearer bench' }, signal: new AbortController().signal, retry: false },
    );
  for (const side of sides) for (let i = 0; i < 300; i++) await call(side.sheets);
  const micros = sides.map(() => 0);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, side] of sides.entries()) {
      const before = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await call(side.sheets);
      const used = process.cpuUsage(before);
      micros[index]! += used.user + used.system;
    }
  }
  for (const [index, side] of sides.entries())
    process.stdout.write(
      `${side.name.padEnd(34)} ${(micros[index]! / (ROUNDS * CALLS)).toFixed(0)} µs CPU per values.get\n`,
    );
  child.kill();
}
