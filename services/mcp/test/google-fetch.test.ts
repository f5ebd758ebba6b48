import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { google } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeGoogleFailure } from '../src/google/google-errors.ts';
import { createGoogleFetch } from '../src/google/google-fetch.ts';

// googleapis over createGoogleFetch against a real HTTP server: what the tools rely on from
// Google's answers — JSON data (gzipped, as Google sends it when asked), refusals as GaxiosError
// with their status, reason and Retry-After, redirects, bytes, uploads and cancellation.

let server: http.Server;
let rootUrl: string;
const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    const values = JSON.stringify({ range: 'Sheet1!A1:B1', values: [['a', 'b']] });
    if (req.url!.includes('/values/gzipped')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-encoding': 'gzip' });
      res.end(gzipSync(values));
    } else if (req.url!.includes('/values/moved')) {
      res.writeHead(302, { location: req.url!.replace('moved', 'plain') });
      res.end();
    } else if (req.url!.includes('/values/plain')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(values);
    } else if (req.url!.includes('/values/limited')) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(
        JSON.stringify({
          error: {
            code: 429,
            message: 'Quota exceeded',
            status: 'RESOURCE_EXHAUSTED',
            errors: [{ reason: 'rateLimitExceeded' }],
          },
        }),
      );
    } else if (req.url!.includes('/values/slow')) {
      setTimeout(() => res.end('{}'), 5_000).unref();
    } else if (req.url!.includes('/export')) {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'new-file', name: 'upload' }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rootUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const googleFetch = createGoogleFetch();
const sheets = () => google.sheets({ version: 'v4', rootUrl, fetchImplementation: googleFetch });
const drive = () => google.drive({ version: 'v3', rootUrl, fetchImplementation: googleFetch });
// gaxios is googleapis' own dependency, not ours: its error is known by its class name.
const gaxiosError = (error: unknown) => error instanceof Error && error.constructor.name === 'GaxiosError';
const request = { headers: { Authorization: 'Bearer token' }, retry: false } as const;

describe('googleapis over createGoogleFetch', () => {
  it('parses JSON answers, gzipped or not, and follows redirects', async () => {
    for (const range of ['plain', 'gzipped', 'moved']) {
      const { data, status, headers } = await sheets().spreadsheets.values.get(
        { spreadsheetId: 's', range },
        request,
      );
      expect(status).toBe(200);
      expect(data.values).toEqual([['a', 'b']]);
      expect((headers as Record<string, string>)['content-type']).toMatch(/^application\/json/);
    }
    const sent = seen.find((call) => call.url.includes('/values/gzipped'))!;
    expect(sent.headers.authorization).toBe('Bearer token');
    expect(sent.headers['accept-encoding']).toBe('gzip');
  });

  it('turns a refusal into a GaxiosError that google-errors reads, Retry-After included', async () => {
    const error = await sheets()
      .spreadsheets.values.get({ spreadsheetId: 's', range: 'limited' }, request)
      .catch((caught: unknown) => caught);
    expect(gaxiosError(error)).toBe(true);
    expect(describeGoogleFailure(error)).toEqual({
      status: 429,
      reason: 'rateLimitExceeded',
      message: 'Quota exceeded',
      retryAfterSeconds: 7,
    });
    // gaxios's redactor still reaches the headers: the bearer token is not in the error.
    expect(
      JSON.stringify((error as { config: { headers: Headers } }).config.headers.get('authorization')),
    ).not.toContain('token');
  });

  it('hands back bytes, and sends JSON bodies and multipart uploads', async () => {
    const exported = await drive().files.export(
      { fileId: 'f', mimeType: 'application/pdf' },
      { ...request, responseType: 'arraybuffer' },
    );
    expect(Buffer.from(exported.data as ArrayBuffer)).toEqual(
      Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]),
    );

    await sheets().spreadsheets.values.update(
      { spreadsheetId: 's', range: 'plain', valueInputOption: 'RAW', requestBody: { values: [['x']] } },
      request,
    );
    const update = seen.at(-1)!;
    expect(update.method).toBe('PUT');
    expect(JSON.parse(update.body)).toEqual({ values: [['x']] });

    const created = await drive().files.create(
      {
        requestBody: { name: 'upload' },
        media: { mimeType: 'text/csv', body: Readable.from(Buffer.from('a,b\n1,2\n')) },
      },
      { ...request, rootUrl },
    );
    expect(created.data.id).toBe('new-file');
    const upload = seen.at(-1)!;
    expect(upload.headers['content-type']).toMatch(/^multipart\/related; boundary=/);
    expect(upload.body).toContain('a,b\n1,2\n');
    expect(upload.body).toContain('"name":"upload"');
  });

  it('stops at once when the call is cancelled', async () => {
    const cancel = new AbortController();
    const started = performance.now();
    setTimeout(() => cancel.abort(), 50);
    const error = await sheets()
      .spreadsheets.values.get({ spreadsheetId: 's', range: 'slow' }, { ...request, signal: cancel.signal })
      .catch((caught: unknown) => caught);
    expect(gaxiosError(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
