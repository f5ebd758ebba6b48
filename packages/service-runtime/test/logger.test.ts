import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../src/logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger({ service: 'test', level: 'trace', destination });
  return { logger, lines };
}

// Credentials of every kind Sheetgate handles, built at run time (none is real).
const jwt = `eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.${Buffer.from('{"sub":"u1"}').toString('base64url')}.c2lnbmF0dXJlLWJ5dGVz`;
const apiKey = `sg_live_${'A1b2C3d4'.repeat(5)}`;
const googleAccess = `ya29.${'a0AfH6SM'.repeat(4)}`;
const googleRefresh = `1//${'0gLmNoPqRs'.repeat(4)}`;
const clientSecret = `GOCSPX-${'xYz12'.repeat(5)}`;
const secrets = [jwt, apiKey, googleAccess, googleRefresh, clientSecret];

describe('log redaction (docs/design.md §7.4)', () => {
  it('redacts credential headers by name', () => {
    const { logger, lines } = capture();
    logger.info({
      req: {
        headers: {
          authorization: 'Bearer opaque-value-123',
          'x-api-key': 'plain-key-value',
          cookie: 'sid=abc123',
        },
      },
      res: { headers: { 'set-cookie': 'sid=def456' } },
    });
    const line = lines.join('\n');
    for (const value of ['opaque-value-123', 'plain-key-value', 'abc123', 'def456'])
      expect(line).not.toContain(value);
    expect(JSON.parse(lines[0]!).req.headers.authorization).toBe('[redacted]');
  });

  it('redacts token-shaped values under any key, in messages and in errors', () => {
    const { logger, lines } = capture();
    logger.info(
      { detail: `upstream said ${jwt}`, nested: { list: [apiKey, { note: googleAccess }] } },
      'first',
    );
    logger.warn(`refresh with ${googleRefresh} failed for client ${clientSecret}`);
    logger.error({ err: new Error(`token ${jwt} rejected`) }, 'failure');
    logger.info({ code: 'authorization-code-value', refresh_token: 'rt-value', client_secret: 'cs-value' });
    const all = lines.join('\n');
    for (const secret of [...secrets, 'authorization-code-value', 'rt-value', 'cs-value']) {
      expect(all).not.toContain(secret);
    }
    expect(lines).toHaveLength(4);
    expect(all).toContain('upstream said [redacted]');
  });

  it('keeps what is not secret', () => {
    const { logger, lines } = capture();
    logger.info({ method: 'POST', path: '/api/mcp', status: 401, userId: 'user-42' }, 'request');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'POST',
      path: '/api/mcp',
      status: 401,
      userId: 'user-42',
      msg: 'request',
      service: 'test',
      level: 'info',
    });
  });

  it('scrubs a private key block', () => {
    // Generated here: no key material is ever committed, not even a test one.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().trim();
    expect(scrubSecrets(`key: ${pem}`)).toBe('key: [redacted]');
  });
});
