import { describe, expect, it } from 'vitest';
import { resolveRoute, routeTable } from '../src/route-table.ts';

const expectations: Array<[string, string | null]> = [
  ['/healthz', null], // probes answer on each service's own port, never at the public edge
  ['/readyz', null],
  ['/healthz/', 'web'],
  ['/api/mcp', 'mcp'],
  ['/api/mcp/', 'web'], // no trailing-slash variant of the MCP endpoint (docs/design.md §2)
  ['/api/mcpx', 'web'],
  ['/.well-known/oauth-protected-resource', 'mcp'],
  ['/.well-known/oauth-protected-resource/api/mcp', 'mcp'],
  ['/.well-known/openid-configuration', 'auth'],
  ['/.well-known/openid-configuration/api/auth', 'auth'],
  ['/.well-known/oauth-authorization-server', 'auth'],
  ['/.well-known/oauth-authorization-server/api/auth', 'auth'],
  ['/.well-known/oauth-authorization-serverx', 'web'],
  ['/.well-known/security.txt', 'web'],
  ['/api/auth', 'auth'],
  ['/api/auth/oauth2/token', 'auth'],
  ['/api/auth/jwks', 'auth'],
  ['/api/authx', 'web'],
  ['/', 'web'],
  ['/login', 'web'],
  ['/authorize', 'web'],
  ['/dashboard', 'web'],
];

describe('route table (docs/design.md §2)', () => {
  it.each(expectations)('routes %s to %s', (path, service) => {
    expect(resolveRoute(path)?.service).toBe(service);
  });

  it('has no two routes with the same path and type', () => {
    const keys = routeTable.map((route) => `${route.pathType} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('matches nothing that is not an absolute path', () => {
    expect(resolveRoute('api/mcp')).toBeUndefined();
    expect(resolveRoute('')).toBeUndefined();
  });
});
