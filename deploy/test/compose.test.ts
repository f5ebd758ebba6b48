/**
 * deploy/compose.yaml (no engine needed to check it): the services it promises, hardened; each
 * Sheetgate service given settings it accepts; secrets only from the env file, whose example holds
 * none; and a gateway (compose/nginx.conf) that is the route table, never naming auth's gRPC port.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeTable, type ServiceName } from '@sheetgate/route-table';
import { generateLocalSecrets } from '@sheetgate/test-harness';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { authSettingsSchema } from '../../services/auth/src/settings.ts';
import { mcpSettingsSchema, requestBodyCeiling } from '../../services/mcp/src/settings.ts';
import { webSettingsSchema } from '../../services/web/src/settings.ts';
import { nginxSize } from './support/nginx-size.ts';

const deployDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const composeText = readFileSync(path.join(deployDir, 'compose.yaml'), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: the compose file is checked field by field below.
const compose = parseYaml(composeText, { merge: true }) as { services: Record<string, any> };
// biome-ignore lint/suspicious/noTemplateCurlyInString: compose's interpolation, as written in compose.yaml.
const publishedGatewayPort = '${SHEETGATE_PORT:-8080}:8080';
const envExample = readFileSync(path.join(deployDir, 'compose.env.example'), 'utf8');
const exampleValues = Object.fromEntries(
  envExample
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);
const schemas: Record<ServiceName, z.ZodObject> = {
  auth: authSettingsSchema,
  mcp: mcpSettingsSchema,
  web: webSettingsSchema,
};
/** The operator's ceiling on outbound actions: mcp holds calls to it, web's dashboard shows it. */
const OUTBOUND_SETTINGS = Object.keys(mcpSettingsSchema.shape).filter((key) => key.startsWith('OUTBOUND_'));
const portOf = (service: ServiceName) =>
  (schemas[service].shape[`${service.toUpperCase()}_PORT`] as z.ZodType).parse(undefined) as number;
const grpcPort = (authSettingsSchema.shape.AUTH_GRPC_PORT as z.ZodType).parse(undefined) as number;

/** What compose would substitute, with the example's non-secret values and made-up secrets. */
function interpolate(value: string): string {
  const secrets: Record<string, string> = {
    ...generateLocalSecrets(),
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
    GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com',
    GOOGLE_CLIENT_SECRET: 'secret',
  };
  return value.replace(
    /\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g,
    (_, name: string, kind?: string, rest?: string) => {
      const given = exampleValues[name] || secrets[name];
      if (given) return given;
      if (kind === '-') return rest ?? '';
      throw new Error(
        `compose.yaml needs ${name}, which compose.env.example leaves empty and the test cannot make`,
      );
    },
  );
}

describe('deploy/compose.yaml', () => {
  it('runs PostgreSQL, Redis, a one-shot migration, the three services and a gateway', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['auth', 'ingress', 'mcp', 'migrate', 'postgres', 'redis', 'web'].sort(),
    );
    const migrate = compose.services.migrate;
    const authPackage = JSON.parse(
      readFileSync(path.join(deployDir, '../services/auth/package.json'), 'utf8'),
    );
    expect(migrate.command.join(' ')).toBe(authPackage.scripts.migrate);
    expect(migrate.image).toBe(compose.services.auth.image);
    expect(migrate.restart).toBe('no');
    expect(compose.services.auth.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
  });

  it('publishes only the gateway, and hardens every container', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.ports ?? [], name).toEqual(name === 'ingress' ? [publishedGatewayPort] : []);
      expect(service.read_only, name).toBe(true);
      expect(service.cap_drop, name).toEqual(['ALL']);
      expect(service.security_opt, name).toContain('no-new-privileges:true');
      expect(service.tmpfs, name).toContain('/tmp');
      const [user] = String(service.user).split(':');
      expect(Number(user), `${name} runs as a numeric non-root user`).toBeGreaterThan(0);
    }
  });

  it.each(['auth', 'mcp', 'web'] as const)(
    '%s: built from its Dockerfile, with settings it accepts',
    (service) => {
      const definition = compose.services[service];
      expect(definition.build).toEqual({ context: '..', dockerfile: `deploy/docker/${service}.Dockerfile` });
      const environment = Object.fromEntries(
        Object.entries(definition.environment as Record<string, string>).map(([key, value]) => [
          key,
          interpolate(String(value)),
        ]),
      );
      const schema = schemas[service];
      for (const key of Object.keys(environment)) expect(Object.keys(schema.shape), key).toContain(key);
      const input = Object.fromEntries(
        Object.keys(schema.shape).map((key) => [key, environment[key] || undefined]),
      );
      const parsed = schema.safeParse(input);
      expect(parsed.error?.issues ?? []).toEqual([]);
      // Metrics on the service's own default port, reachable on the compose network only.
      const metricsPort = (schema.shape[`${service.toUpperCase()}_METRICS_PORT`] as z.ZodType).parse(
        undefined,
      );
      expect(definition.expose).toEqual([String(metricsPort)]);
      expect(definition.ports).toBeUndefined();
      if (service !== 'auth') expect(environment.AUTH_GRPC_ADDRESS).toBe(`auth:${grpcPort}`);
      if (service === 'mcp') expect(environment.AUTH_INTERNAL_URL).toBe(`http://auth:${portOf('auth')}`);
    },
  );

  it('gives mcp and web the same outbound ceiling from the env file', () => {
    expect(OUTBOUND_SETTINGS).toHaveLength(3);
    for (const setting of OUTBOUND_SETTINGS) {
      expect(compose.services.web.environment[setting], setting).toBeDefined();
      expect(compose.services.web.environment[setting], setting).toBe(
        compose.services.mcp.environment[setting],
      );
    }
  });

  it('takes every secret from the env file, whose example has none filled in', () => {
    const referenced = new Set([...composeText.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]!));
    for (const name of referenced) expect(Object.keys(exampleValues), name).toContain(name);
    const secrets = Object.keys(exampleValues).filter((name) =>
      /PASSWORD|SECRET|TOKEN|KEYS|PEPPER|CLIENT_ID/.test(name),
    );
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    for (const name of secrets) expect(exampleValues[name], `${name} is empty in the example`).toBe('');
  });
});

describe('deploy/compose/nginx.conf', () => {
  const conf = readFileSync(path.join(deployDir, 'compose/nginx.conf'), 'utf8');

  it('routes exactly by the route table, in its order', () => {
    const locations = [
      ...conf.matchAll(/^\s*location (= )?(\S+) \{ (?:proxy_pass http:\/\/(\w+)|return (404));[^}]*\}$/gm),
    ].map((m) => `${m[1] ? '= ' : ''}${m[2]} -> ${m[3] ?? m[4]}`);
    const expected = routeTable.flatMap((route) => {
      if (route.service === null) return [`= ${route.path} -> 404`];
      if (route.pathType === 'Exact') return [`= ${route.path} -> ${route.service}`];
      if (route.path === '/') return [`/ -> ${route.service}`];
      return [`= ${route.path} -> ${route.service}`, `${route.path}/ -> ${route.service}`];
    });
    expect(locations).toEqual(expected);
    expect(conf.match(/^\s*location /gm)).toHaveLength(expected.length);
  });

  it("waits for mcp's answer a little longer than its request timeout, not nginx's default 60 s", () => {
    const requestTimeout = (mcpSettingsSchema.shape.MCP_REQUEST_TIMEOUT_SECONDS as z.ZodType).parse(
      undefined,
    ) as number;
    const mcpLocation = /^\s*location = \/api\/mcp \{([^}]*)\}$/m.exec(conf)?.[1] ?? '';
    for (const name of ['proxy_read_timeout', 'proxy_send_timeout']) {
      const seconds = Number(new RegExp(`\\b${name} (\\d+)s;`).exec(mcpLocation)?.[1]);
      expect(seconds, name).toBeGreaterThan(requestTimeout);
      expect(seconds, name).toBeLessThanOrEqual(requestTimeout + 15);
    }
  });

  it("passes request bodies up to mcp's request body ceiling, so that mcp answers a call past its limit", () => {
    const maxRequestBytes = mcpSettingsSchema.shape.MCP_MAX_REQUEST_BYTES.parse(undefined);
    const size = /^\s*client_max_body_size (\w+);$/m.exec(conf)?.[1];
    expect(nginxSize(size)).toBe(requestBodyCeiling(maxRequestBytes));
  });

  it("sends each service to its own HTTP port, never to auth's gRPC port", () => {
    const upstreams = Object.fromEntries(
      [...conf.matchAll(/upstream (\w+) \{\s*server (\w+):(\d+);\s*\}/g)].map((m) => [
        m[1],
        `${m[2]}:${m[3]}`,
      ]),
    );
    expect(upstreams).toEqual({
      auth: `auth:${portOf('auth')}`,
      mcp: `mcp:${portOf('mcp')}`,
      web: `web:${portOf('web')}`,
    });
    const directives = conf.replace(/#.*$/gm, '');
    expect(directives).not.toContain(String(grpcPort));
  });
});
