/**
 * The Kubernetes manifests (deploy/k8s) hold the services' contract: every overlay renders and
 * its objects pass the Kubernetes schemas, strictly; the Ingress is the route table; probes and
 * ports are the services' own; the settings given are the settings each service accepts; nothing
 * runs as root; auth's gRPC is reachable from mcp and web only, never through the Ingress; each
 * service's metrics port is announced for scraping, behind no Ingress backend, open to Prometheus
 * alone.
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
import {
  type Field,
  type K8sObject,
  kubectlKustomizeAvailable,
  podContainers,
  podSpecOf,
  render,
  renderOffline,
  renderWithKubectl,
} from './support/kustomize.ts';
import { type Endpoint, mayConnect } from './support/network-policy.ts';
import { nginxSize } from './support/nginx-size.ts';
import { validateObject } from './support/schemas.ts';
import { strictSchemaProblems } from './support/strict-schemas.ts';

const deployDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const k8sDir = path.join(deployDir, 'k8s');
const overlays = ['dev', 'production'] as const;
const rendered = Object.fromEntries(
  [
    ...overlays.map((name) => [name, path.join(k8sDir, 'overlays', name)]),
    ['base', path.join(k8sDir, 'base')],
  ].map(([name, dir]) => [name, { dir: dir!, ...render(dir!) }]),
) as Record<(typeof overlays)[number] | 'base', { dir: string; objects: K8sObject[]; renderer: string }>;

const services = {
  auth: { schema: authSettingsSchema, portSetting: 'AUTH_PORT' },
  mcp: { schema: mcpSettingsSchema, portSetting: 'MCP_PORT' },
  web: { schema: webSettingsSchema, portSetting: 'WEB_PORT' },
} satisfies Record<ServiceName, { schema: z.ZodObject; portSetting: string }>;
const serviceNames = Object.keys(services) as ServiceName[];
/** The operator's ceiling on outbound actions: mcp holds calls to it, web's dashboard shows it. */
const OUTBOUND_SETTINGS = Object.keys(mcpSettingsSchema.shape).filter((key) => key.startsWith('OUTBOUND_'));

/**
 * A Kubernetes resource quantity (`250m`, `192Mi`, `1G`, `0.5`) as a number of cores or bytes;
 * NaN for anything Kubernetes would not read as one (so a comparison with it fails).
 */
function quantity(value: unknown): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(value ?? ''));
  if (!match) return Number.NaN;
  const scale: Record<string, number> = {
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(match[1]) * (match[2] ? scale[match[2]]! : 1);
}

/** A setting's default in the service's own schema (what it listens on when nothing is set). */
function defaultOf(schema: z.ZodObject, key: string): unknown {
  const field = schema.shape[key] as z.ZodType | undefined;
  if (!field) throw new Error(`no setting ${key}`);
  return field.parse(undefined);
}
const grpcPort = defaultOf(authSettingsSchema, 'AUTH_GRPC_PORT') as number;
const mcpGrpcPort = defaultOf(mcpSettingsSchema, 'MCP_GRPC_PORT') as number;
const httpPort = (service: ServiceName) =>
  defaultOf(services[service].schema, services[service].portSetting) as number;
const metricsSetting = (service: ServiceName) => `${service.toUpperCase()}_METRICS_PORT`;
const metricsPort = (service: ServiceName) =>
  defaultOf(services[service].schema, metricsSetting(service)) as number;
const metricsPorts = serviceNames.map(metricsPort);

const find = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const workloads = (objects: K8sObject[]) => objects.filter((o) => podSpecOf(o) !== undefined);
const configMap = (objects: K8sObject[]) => {
  const maps = objects.filter(
    (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('sheetgate-config-'),
  );
  expect(maps).toHaveLength(1);
  return maps[0]!.data as Record<string, string>;
};

/** Resolves a probe's or backend's named port against a container's ports. */
function containerPort(container: Field, port: unknown): number {
  if (typeof port === 'number') return port;
  const found = (container.ports as Array<{ name?: string; containerPort: number }> | undefined)?.find(
    (p) => p.name === port,
  );
  if (!found) throw new Error(`container has no port named ${String(port)}`);
  return found.containerPort;
}

/** The names of the Services some Ingress path sends to. */
function ingressBackendServices(objects: K8sObject[]): Set<string> {
  return new Set(
    objects
      .filter((o) => o.kind === 'Ingress')
      .flatMap((o) =>
        o.spec.rules.flatMap((r: Field) => r.http.paths.map((p: Field) => p.backend.service.name)),
      ),
  );
}

/** The container port a Service port sends to (targetPort by name or number). */
function serviceTargetPort(objects: K8sObject[], serviceName: string, port: number): number {
  const service = find(objects, 'Service', serviceName);
  const servicePort = service.spec.ports.find((p: { port: number }) => p.port === port);
  if (!servicePort) throw new Error(`Service ${serviceName} has no port ${port}`);
  const pods = workloads(objects).filter((w) =>
    Object.entries(service.spec.selector as Record<string, string>).every(
      ([key, value]) => w.spec.template.metadata.labels[key] === value,
    ),
  );
  expect(pods, `Service ${serviceName} selects one workload`).toHaveLength(1);
  return containerPort(podContainers(pods[0]!)[0]!, servicePort.targetPort ?? servicePort.port);
}

describe.each(Object.keys(rendered))('kustomize %s', (name) => {
  const { objects, renderer } = rendered[name as keyof typeof rendered];

  it(`renders (with ${renderer === 'kubectl' ? 'kubectl kustomize' : 'the offline resolver'}) and every object passes the Kubernetes schemas, strictly`, () => {
    expect(objects.length).toBeGreaterThan(10);
    for (const object of objects) validateObject(object);
    expect(strictSchemaProblems(objects)).toEqual([]);
  });

  it('renders the same objects offline as kubectl kustomize does', (context) => {
    if (!kubectlKustomizeAvailable()) {
      context.skip('kubectl (kustomize v5) is not installed: only the offline renderer ran');
    }
    const byId = (list: K8sObject[]) =>
      Object.fromEntries(list.map((o) => [`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, o]));
    const dir = rendered[name as keyof typeof rendered].dir;
    expect(byId(renderOffline(dir))).toEqual(byId(renderWithKubectl(dir)));
  });

  it('has one Ingress whose paths are the route table, in order, to HTTP ports only', () => {
    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    expect(ingresses).toHaveLength(1);
    const rules = ingresses[0]!.spec.rules as Array<{ http: { paths: Array<Record<string, Field>> } }>;
    expect(rules).toHaveLength(1);
    const paths = rules[0]!.http.paths;
    expect(
      paths.map((p) => ({ path: p.path, pathType: p.pathType, service: p.backend.service.name })),
    ).toEqual(
      routeTable.map((route) => ({
        path: route.path,
        pathType: route.pathType,
        service: `sheetgate-${route.service ?? 'no-backend'}`,
      })),
    );
    for (const [index, p] of paths.entries()) {
      const service = routeTable[index]!.service;
      if (service === null) {
        // Served by no service: the backend selects no pod, so nothing answers behind it.
        const nowhere = find(objects, 'Service', p.backend.service.name);
        expect(nowhere.spec.selector).toBeUndefined();
        expect(objects.filter((o) => ['Endpoints', 'EndpointSlice'].includes(o.kind))).toEqual([]);
        continue;
      }
      const port = p.backend.service.port.number as number;
      expect(port).not.toBe(grpcPort);
      expect(serviceTargetPort(objects, p.backend.service.name, port)).toBe(httpPort(service));
    }
    expect(ingresses[0]!.spec.defaultBackend).toBeUndefined();
  });

  it("waits for mcp's answer a little longer than its request timeout, not nginx's default 60 s", () => {
    const requestTimeout = defaultOf(mcpSettingsSchema, 'MCP_REQUEST_TIMEOUT_SECONDS') as number;
    const annotations = find(objects, 'Ingress', 'sheetgate').metadata.annotations as Record<string, string>;
    for (const name of ['proxy-read-timeout', 'proxy-send-timeout']) {
      const seconds = Number(annotations[`nginx.ingress.kubernetes.io/${name}`]);
      expect(seconds, name).toBeGreaterThan(requestTimeout);
      expect(seconds, name).toBeLessThanOrEqual(requestTimeout + 15);
    }
  });

  it("passes request bodies up to mcp's request body ceiling, so that mcp answers a call past its limit", () => {
    const maxRequestBytes = defaultOf(mcpSettingsSchema, 'MCP_MAX_REQUEST_BYTES') as number;
    const annotations = find(objects, 'Ingress', 'sheetgate').metadata.annotations as Record<string, string>;
    expect(nginxSize(annotations['nginx.ingress.kubernetes.io/proxy-body-size'])).toBe(
      requestBodyCeiling(maxRequestBytes),
    );
  });

  it('keeps auth gRPC off every Service the Ingress uses, on a Service of its own', () => {
    const ingressServices = ingressBackendServices(objects);
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      if (!service.spec.selector) continue; // selects no pod: no port behind it (sheetgate-no-backend)
      const ports = service.spec.ports as Array<{ port: number; targetPort?: number | string }>;
      const targets = ports.map((p) => serviceTargetPort(objects, service.metadata.name, p.port));
      if (ingressServices.has(service.metadata.name)) expect(targets).not.toContain(grpcPort);
      if (targets.includes(grpcPort)) {
        expect(service.metadata.name).toBe('sheetgate-auth-grpc');
        expect(service.spec.type ?? 'ClusterIP').toBe('ClusterIP');
      }
    }
    expect(serviceTargetPort(objects, 'sheetgate-auth-grpc', grpcPort)).toBe(grpcPort);
  });

  it("keeps mcp's gRPC off every Service the Ingress uses, on a Service of its own that web is given", () => {
    const ingressServices = ingressBackendServices(objects);
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      if (!service.spec.selector) continue;
      const ports = service.spec.ports as Array<{ port: number }>;
      const targets = ports.map((p) => serviceTargetPort(objects, service.metadata.name, p.port));
      if (ingressServices.has(service.metadata.name)) expect(targets).not.toContain(mcpGrpcPort);
      if (targets.includes(mcpGrpcPort)) expect(service.metadata.name).toBe('sheetgate-mcp-grpc');
    }
    const [host, port] = String(configMap(objects).MCP_GRPC_ADDRESS).split(':');
    expect(serviceTargetPort(objects, host!, Number(port))).toBe(mcpGrpcPort);
  });

  it.each(serviceNames)('%s: probes on its own port and paths, with resources and spread', (service) => {
    const deployment = find(objects, 'Deployment', `sheetgate-${service}`);
    const [container, ...others] = podContainers(deployment);
    expect(others).toEqual([]);
    const probe = (kind: string) => ({
      path: container![kind]?.httpGet?.path,
      port: containerPort(container!, container![kind]?.httpGet?.port),
    });
    expect(probe('readinessProbe')).toEqual({ path: '/readyz', port: httpPort(service) });
    expect(probe('livenessProbe')).toEqual({ path: '/healthz', port: httpPort(service) });
    expect(probe('startupProbe')).toEqual({ path: '/healthz', port: httpPort(service) });
    // Requests the scheduler can place by, and a memory limit it admits (not below the request).
    const { requests, limits } = container!.resources ?? {};
    expect(quantity(requests?.cpu), 'requests.cpu').toBeGreaterThan(0);
    expect(quantity(requests?.memory), 'requests.memory').toBeGreaterThanOrEqual(64 * 2 ** 20);
    expect(quantity(limits?.memory), 'limits.memory').toBeGreaterThanOrEqual(quantity(requests?.memory));
    const spread = deployment.spec.template.spec.topologySpreadConstraints as Array<{ topologyKey: string }>;
    expect(spread.map((s) => s.topologyKey).sort()).toEqual([
      'kubernetes.io/hostname',
      'topology.kubernetes.io/zone',
    ]);
    const budget = find(objects, 'PodDisruptionBudget', `sheetgate-${service}`);
    expect(budget.spec.selector).toEqual(deployment.spec.selector);
  });

  it.each(serviceNames)('%s: the settings the manifests give are the settings it accepts', (service) => {
    const { schema } = services[service];
    const deployment = find(objects, 'Deployment', `sheetgate-${service}`);
    const container = podContainers(deployment)[0]!;
    const config = configMap(objects);
    const placeholders: Record<string, string> = {
      ...generateLocalSecrets(),
      DATABASE_URL: 'postgres://sheetgate:password@postgres:5432/sheetgate',
      REDIS_URL: 'redis://redis:6379',
      INTERNAL_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
      GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: 'secret',
    };
    const env: Record<string, string> = {};
    for (const source of container.envFrom ?? []) {
      expect(source.configMapRef?.name).toMatch(/^sheetgate-config-/);
      Object.assign(env, config);
    }
    for (const variable of container.env ?? []) {
      expect(Object.keys(schema.shape), `${variable.name} is a setting of ${service}`).toContain(
        variable.name,
      );
      if (variable.valueFrom?.secretKeyRef) {
        const ref = variable.valueFrom.secretKeyRef;
        expect(ref.name).toBe('sheetgate-secrets');
        if (!ref.optional) env[variable.name] = placeholders[ref.key]!;
      } else if (variable.value !== undefined) {
        env[variable.name] = variable.value;
      }
    }
    const input = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, env[key] || undefined]));
    const parsed = schema.safeParse(input);
    expect(parsed.error?.issues ?? []).toEqual([]);
    const settings = parsed.data as Record<string, unknown>;
    expect(settings[services[service].portSetting]).toBe(httpPort(service));
    expect(settings[`${service.toUpperCase()}_HOST`]).toBe('0.0.0.0');
    if (service === 'auth') {
      expect(settings.AUTH_GRPC_PORT).toBe(grpcPort);
      // More than one replica shares state through Redis, which the Secret must name.
      expect(
        container.env.find((v: Field) => v.name === 'REDIS_URL')?.valueFrom?.secretKeyRef?.optional,
      ).toBeFalsy();
    } else {
      const [host, port] = String(settings.AUTH_GRPC_ADDRESS).split(':');
      expect(serviceTargetPort(objects, host!, Number(port))).toBe(grpcPort);
    }
    if (service === 'mcp') {
      const url = new URL(String(settings.AUTH_INTERNAL_URL));
      expect(serviceTargetPort(objects, url.hostname, Number(url.port))).toBe(httpPort('auth'));
    }
  });

  it("gives mcp and web the operator's outbound ceiling from the one ConfigMap, neither setting its own", () => {
    for (const service of ['mcp', 'web'] as const) {
      const container = podContainers(find(objects, 'Deployment', `sheetgate-${service}`))[0]!;
      expect(container.envFrom?.map((source: Field) => source.configMapRef?.name)).toEqual([
        expect.stringMatching(/^sheetgate-config-/),
      ]);
      expect(OUTBOUND_SETTINGS).toHaveLength(3);
      for (const setting of OUTBOUND_SETTINGS) {
        expect(Object.keys(services[service].schema.shape), `${service} reads ${setting}`).toContain(setting);
        expect(container.env?.map((variable: Field) => variable.name) ?? []).not.toContain(setting);
      }
    }
  });

  it('every key of the ConfigMap is a setting of some service', () => {
    const known = new Set(serviceNames.flatMap((s) => Object.keys(services[s].schema.shape)));
    for (const key of Object.keys(configMap(objects))) expect(known, key).toContain(key);
  });

  it('runs no container as root, with no privilege escalation, a read-only root and no capabilities', () => {
    for (const workload of workloads(objects)) {
      const pod = podSpecOf(workload);
      expect(pod.automountServiceAccountToken, workload.metadata.name).toBe(false);
      expect(pod.securityContext?.seccompProfile?.type, workload.metadata.name).toBe('RuntimeDefault');
      for (const container of podContainers(workload)) {
        const id = `${workload.metadata.name}/${container.name}`;
        const security = container.securityContext ?? {};
        expect(security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, id).toBe(true);
        const user = security.runAsUser ?? pod.securityContext?.runAsUser;
        expect(user, `${id} runs as a numeric non-root user`).toBeGreaterThan(0);
        expect(security.allowPrivilegeEscalation, id).toBe(false);
        expect(security.readOnlyRootFilesystem, id).toBe(true);
        expect(security.capabilities?.drop, id).toEqual(['ALL']);
        expect(security.capabilities?.add, id).toBeUndefined();
        expect(security.privileged ?? false, id).toBe(false);
        if (container.image.includes('sheetgate/')) {
          const tmp = container.volumeMounts?.find((m: { mountPath: string }) => m.mountPath === '/tmp');
          expect(pod.volumes.find((v: { name: string }) => v.name === tmp?.name)?.emptyDir, id).toBeDefined();
        }
      }
    }
  });

  it('runs migrations as a Job with the auth image and its migrate command', () => {
    const job = find(objects, 'Job', 'sheetgate-migrate');
    const [container] = podContainers(job);
    const auth = podContainers(find(objects, 'Deployment', 'sheetgate-auth'))[0]!;
    expect(container!.image).toBe(auth.image);
    const authPackage = JSON.parse(
      readFileSync(path.join(deployDir, '../services/auth/package.json'), 'utf8'),
    );
    expect(container!.command.join(' ')).toBe(authPackage.scripts.migrate);
    expect(container!.env.map((v: { name: string }) => v.name).sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL']);
  });

  it('scales mcp with an HPA, and leaves the replica count to it', () => {
    const hpa = find(objects, 'HorizontalPodAutoscaler', 'sheetgate-mcp');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'sheetgate-mcp',
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
    expect(find(objects, 'Deployment', 'sheetgate-mcp').spec.replicas).toBeUndefined();
  });

  it.each(serviceNames)(
    '%s: serves /metrics on a port of its own, announced for scraping, that no Ingress backend reaches',
    (service) => {
      const port = metricsPort(service);
      const deployment = find(objects, 'Deployment', `sheetgate-${service}`);
      const container = podContainers(deployment)[0]!;
      expect(containerPort(container, 'metrics')).toBe(port);
      expect(configMap(objects)[metricsSetting(service)]).toBe(String(port));
      expect(deployment.spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
      const metricsService = find(objects, 'Service', `sheetgate-${service}-metrics`);
      expect(metricsService.spec.clusterIP).toBe('None');
      expect(metricsService.metadata.labels['sheetgate/metrics']).toBe('true');
      expect(metricsService.spec.ports.map((p: Field) => p.name)).toEqual(['metrics']);
      expect(serviceTargetPort(objects, metricsService.metadata.name, port)).toBe(port);
      // Neither an Ingress backend nor any Service the Ingress uses leads to a metrics port.
      for (const ingress of objects.filter((o) => o.kind === 'Ingress')) {
        for (const path of ingress.spec.rules.flatMap((r: Field) => r.http.paths)) {
          const backend = path.backend.service;
          expect(backend.name).not.toMatch(/-metrics$/);
          const backendService = find(objects, 'Service', backend.name);
          if (!backendService.spec.selector) continue; // selects no pod: reaches no port at all
          for (const p of backendService.spec.ports as Array<{ port: number }>) {
            expect(metricsPorts).not.toContain(serviceTargetPort(objects, backend.name, p.port));
          }
        }
      }
    },
  );

  it('gives the ServiceMonitor example Services to find, and its alert rules series that exist', () => {
    const monitor = parseYaml(readFileSync(path.join(k8sDir, 'examples/service-monitor.yaml'), 'utf8'));
    const selected = objects.filter(
      (o) =>
        o.kind === 'Service' &&
        monitor.spec.namespaceSelector.matchNames.includes(o.metadata.namespace) &&
        Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v),
    );
    expect(selected.map((o) => o.metadata.name).sort()).toEqual(
      serviceNames.map((service) => `sheetgate-${service}-metrics`).sort(),
    );
    for (const service of selected) {
      expect(service.spec.ports.map((p: Field) => p.name)).toContain(monitor.spec.endpoints[0].port);
    }
    expect(monitor.spec.endpoints[0].path).toBe('/metrics');
  });

  describe('NetworkPolicies', () => {
    const namespace = { name: 'sheetgate', labels: { 'kubernetes.io/metadata.name': 'sheetgate' } };
    const pod = (component: string): Endpoint => ({
      name: component,
      namespace,
      labels: { 'app.kubernetes.io/name': 'sheetgate', 'app.kubernetes.io/component': component },
    });
    const clients: Endpoint[] = [
      ...['auth', 'mcp', 'web', 'migrate', 'postgres', 'redis'].map(pod),
      { name: 'another pod in the namespace', namespace, labels: { app: 'debug' } },
      {
        name: 'ingress controller',
        namespace: { name: 'ingress-nginx', labels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
        labels: { 'app.kubernetes.io/name': 'ingress-nginx' },
      },
      {
        name: 'prometheus',
        namespace: { name: 'monitoring', labels: { 'kubernetes.io/metadata.name': 'monitoring' } },
        labels: { 'app.kubernetes.io/name': 'prometheus' },
      },
      {
        name: 'another pod in the monitoring namespace',
        namespace: { name: 'monitoring', labels: { 'kubernetes.io/metadata.name': 'monitoring' } },
        labels: { 'app.kubernetes.io/name': 'grafana' },
      },
      {
        name: 'a pod in another namespace',
        namespace: { name: 'other', labels: { 'kubernetes.io/metadata.name': 'other' } },
        labels: { 'app.kubernetes.io/name': 'sheetgate', 'app.kubernetes.io/component': 'mcp' },
      },
    ];
    const external: Endpoint = { name: 'outside the cluster', labels: {} };
    const allowed = (server: Endpoint, port: number) =>
      clients
        .filter((client) => client !== server && mayConnect(objects, client, server, port))
        .map((c) => c.name);

    it('let only mcp and web reach auth gRPC', () => {
      expect(allowed(pod('auth'), grpcPort)).toEqual(['mcp', 'web']);
    });

    it("let only web reach mcp's gRPC (the dashboard's Undo)", () => {
      expect(allowed(pod('mcp'), mcpGrpcPort)).toEqual(['web']);
    });

    it('let the ingress controller reach each HTTP port (and mcp the JWKS), nothing else', () => {
      expect(allowed(pod('auth'), httpPort('auth'))).toEqual(['mcp', 'ingress controller']);
      expect(allowed(pod('mcp'), httpPort('mcp'))).toEqual(['ingress controller']);
      expect(allowed(pod('web'), httpPort('web'))).toEqual(['ingress controller']);
    });

    it.each(serviceNames)(
      "let only Prometheus reach %s's metrics port, and Prometheus nothing else",
      (service) => {
        expect(allowed(pod(service), metricsPort(service))).toEqual(['prometheus']);
        const scraper = clients.find((c) => c.name === 'prometheus')!;
        for (const port of [
          httpPort(service),
          grpcPort,
          ...metricsPorts.filter((p) => p !== metricsPort(service)),
        ]) {
          expect(mayConnect(objects, scraper, pod(service), port), `prometheus → ${service}:${port}`).toBe(
            false,
          );
        }
      },
    );

    it('let only auth and the migration Job reach PostgreSQL, and only auth Redis', () => {
      const hasPostgres = objects.some((o) => o.metadata.name === 'sheetgate-postgres');
      if (hasPostgres) {
        expect(allowed(pod('postgres'), 5432)).toEqual(['auth', 'migrate']);
        expect(allowed(pod('redis'), 6379)).toEqual(['auth']);
      }
      // An external database: only auth's and the Job's egress lets them out on its port.
      const outward = clients.filter((c) => c.namespace?.name === 'sheetgate');
      expect(outward.filter((c) => mayConnect(objects, c, external, 5432)).map((c) => c.name)).toEqual([
        'auth',
        'migrate',
      ]);
    });
  });
});

describe('strict schema validation', () => {
  const base = rendered.base.objects;
  const deployment = structuredClone(find(base, 'Deployment', 'sheetgate-mcp'));
  const container = () => deployment.spec.template.spec.containers[0];

  it('refuses a misspelled or unknown field anywhere in an object, naming the object and field', () => {
    const misspelled = structuredClone(deployment);
    misspelled.spec.template.spec.containers[0].readinesProbe = container().readinessProbe;
    const service = structuredClone(find(base, 'Service', 'sheetgate-mcp'));
    service.spec.ports[0].targetPorts = 'http';
    const policy = structuredClone(base.find((o) => o.kind === 'NetworkPolicy')!);
    policy.spec.ingres = [];
    const labelled = structuredClone(find(base, 'Service', 'sheetgate-web'));
    labelled.metadata.label = { a: 'b' };
    const problems = strictSchemaProblems([misspelled, service, policy, labelled]);
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^Deployment sheetgate-mcp: .*'readinesProbe'/);
    expect(problems[1]).toMatch(/^Service sheetgate-mcp: .*'targetPorts'/);
    expect(problems[2]).toMatch(/^NetworkPolicy .*'ingres'/);
    expect(problems[3]).toMatch(/^Service sheetgate-web: .*'label'/);
  });

  it('refuses a field of the wrong type and a missing required field', () => {
    const wrongType = structuredClone(deployment);
    wrongType.spec.revisionHistoryLimit = 'five';
    const missing = structuredClone(deployment);
    delete missing.spec.template.spec.containers[0].name;
    const problems = strictSchemaProblems([wrongType, missing]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^Deployment sheetgate-mcp: Type 'string' is not assignable to type 'number'/,
    );
    expect(problems[1]).toMatch(/^Deployment sheetgate-mcp: Property 'name' is missing/);
  });
});

describe('overlays', () => {
  it('dev runs PostgreSQL and Redis in the cluster; production expects them outside', () => {
    const names = (overlay: 'dev' | 'production') => rendered[overlay].objects.map((o) => o.metadata.name);
    expect(names('dev')).toEqual(expect.arrayContaining(['sheetgate-postgres', 'sheetgate-redis']));
    expect(names('production')).not.toEqual(expect.arrayContaining(['sheetgate-postgres']));
    expect(names('production').filter((n) => /postgres|redis/.test(n))).toEqual([]);
  });

  it('production serves BASE_URL over TLS from cert-manager, with more replicas and pinned images', () => {
    const { objects } = rendered.production;
    const baseUrl = new URL(configMap(objects).BASE_URL!);
    expect(baseUrl.protocol).toBe('https:');
    const ingress = find(objects, 'Ingress', 'sheetgate');
    expect(ingress.metadata.annotations['cert-manager.io/cluster-issuer']).toBeTruthy();
    expect(ingress.spec.rules[0].host).toBe(baseUrl.hostname);
    expect(ingress.spec.tls).toEqual([{ hosts: [baseUrl.hostname], secretName: expect.any(String) }]);
    expect(find(objects, 'Deployment', 'sheetgate-auth').spec.replicas).toBeGreaterThan(
      find(rendered.dev.objects, 'Deployment', 'sheetgate-auth').spec.replicas,
    );
    expect(find(objects, 'HorizontalPodAutoscaler', 'sheetgate-mcp').spec.minReplicas).toBeGreaterThanOrEqual(
      3,
    );
    for (const workload of workloads(objects)) {
      for (const container of podContainers(workload)) expect(container.image).not.toMatch(/:(dev|latest)$/);
    }
  });

  it('dev answers on http://localhost:8080, where the ingress controller is port-forwarded', () => {
    expect(configMap(rendered.dev.objects).BASE_URL).toBe('http://localhost:8080');
  });

  const secretKeys = () =>
    new Set(
      Object.values(rendered).flatMap(({ objects }) =>
        workloads(objects).flatMap((w) =>
          podContainers(w).flatMap((c) =>
            (c.env ?? []).flatMap((v: Field) =>
              v.valueFrom?.secretKeyRef ? [v.valueFrom.secretKeyRef.key] : [],
            ),
          ),
        ),
      ),
    );

  it('gives operators every Secret key the manifests read: env example and external-secrets example', () => {
    const keys = [...secretKeys()].sort();
    const example = readFileSync(path.join(k8sDir, 'examples/secrets.env.example'), 'utf8');
    const exampleKeys = [...example.matchAll(/^([A-Z_]+)=(.*)$/gm)];
    expect(exampleKeys.map((m) => m[1]).sort()).toEqual(keys);
    for (const match of exampleKeys) expect(match[2], `${match[1]} is empty in the example`).toBe('');
    const external = parseYaml(readFileSync(path.join(k8sDir, 'examples/external-secret.yaml'), 'utf8'));
    expect(external.spec.target.name).toBe('sheetgate-secrets');
    expect(external.spec.data.map((d: { secretKey: string }) => d.secretKey).sort()).toEqual(
      keys.filter((key) => key !== 'POSTGRES_PASSWORD'),
    );
  });

  it('documents every Secret key the manifests read', () => {
    const readme = readFileSync(path.join(deployDir, 'README.md'), 'utf8');
    const keys = secretKeys();
    expect(keys.size).toBeGreaterThan(8);
    for (const key of keys) expect(readme, `deploy/README.md names ${key}`).toContain(`\`${key}\``);
  });
});
