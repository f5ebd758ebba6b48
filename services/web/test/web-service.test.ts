import { randomBytes } from 'node:crypto';
import { freePort, type RunningService, readJson, startServiceProcess } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let web: RunningService;

beforeAll(async () => {
  const port = await freePort();
  web = await startServiceProcess(
    'web',
    {
      WEB_PORT: String(port),
      BASE_URL: 'http://localhost:8080',
      INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
    },
    port,
  );
});
afterAll(async () => {
  await web?.stop();
});

describe('web service', () => {
  it('serves the home page with strict security headers', async () => {
    const response = await fetch(`${web.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('http://localhost:8080/api/mcp');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it.each(['/login', '/authorize', '/dashboard'])(
    'answers %s with 501 JSON until the pages are built',
    async (path) => {
      const response = await fetch(`${web.url}${path}`);
      expect(response.status).toBe(501);
      expect((await readJson(response)).error).toBe('not_implemented');
    },
  );

  it('answers unknown /.well-known documents with a JSON 404, never HTML', async () => {
    const response = await fetch(`${web.url}/.well-known/security-policy`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await readJson(response)).toEqual({
      error: 'not_found',
      error_description: 'no such metadata document',
    });
  });
});
