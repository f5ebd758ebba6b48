/**
 * The public route table (docs/design.md §2). Matching follows Kubernetes Ingress semantics so that
 * the local gateway and the Ingress generated from this table can never disagree:
 * - `Exact`: the path equals `path` (no trailing-slash variant);
 * - `Prefix`: `path` matches whole `/`-separated elements of the request path;
 * - the longest matching `path` wins, and `Exact` beats `Prefix` of the same length.
 */
export type ServiceName = 'auth' | 'mcp' | 'web';

export interface Route {
  path: string;
  pathType: 'Exact' | 'Prefix';
  /** `null`: the edge answers 404 itself and no service is reached. */
  service: ServiceName | null;
  /** Why this path belongs to this service. */
  purpose: string;
}

export const routeTable: readonly Route[] = [
  {
    path: '/healthz',
    pathType: 'Exact',
    service: null,
    purpose: 'probes: every service answers on its own port, for the orchestrator only, never publicly',
  },
  {
    path: '/readyz',
    pathType: 'Exact',
    service: null,
    purpose: "readiness probes (they tell which dependency is down): the services' own ports only",
  },
  { path: '/api/mcp', pathType: 'Exact', service: 'mcp', purpose: 'MCP Streamable HTTP endpoint' },
  {
    path: '/.well-known/oauth-protected-resource',
    pathType: 'Prefix',
    service: 'mcp',
    purpose: 'protected-resource metadata (RFC 9728), bare and path-suffixed',
  },
  {
    path: '/.well-known/openid-configuration',
    pathType: 'Prefix',
    service: 'auth',
    purpose: 'OpenID discovery, bare and path-suffixed',
  },
  {
    path: '/.well-known/oauth-authorization-server',
    pathType: 'Prefix',
    service: 'auth',
    purpose: 'authorization server metadata (RFC 8414), bare and path-suffixed',
  },
  {
    path: '/api/auth',
    pathType: 'Prefix',
    service: 'auth',
    purpose: 'OAuth endpoints, JWKS, Google sign-in, interaction decisions, sign-out',
  },
  {
    path: '/',
    pathType: 'Prefix',
    service: 'web',
    purpose: 'pages (/login, /authorize, /dashboard), static assets, JSON 404 for unknown /.well-known/*',
  },
];

function matches(route: Route, path: string): boolean {
  if (route.pathType === 'Exact') return path === route.path;
  if (route.path === '/') return path.startsWith('/');
  return path === route.path || path.startsWith(`${route.path}/`);
}

/** The route that answers `path` (a request path without query), or undefined for a non-path. */
export function resolveRoute(path: string, table: readonly Route[] = routeTable): Route | undefined {
  let best: Route | undefined;
  for (const route of table) {
    if (!matches(route, path)) continue;
    if (
      !best ||
      route.path.length > best.path.length ||
      (route.path.length === best.path.length && route.pathType === 'Exact')
    ) {
      best = route;
    }
  }
  return best;
}
