/**
 * Renders a kustomization the way `kubectl kustomize` does, for the tests.
 *
 * With kubectl (kustomize v5) on the machine, its output is the truth. Without it (a fresh CI
 * machine: Debian's kubernetes-client embeds a kustomize too old for `patches`, and no maintained
 * npm library renders kustomize), `renderOffline` resolves the subset of kustomize that
 * deploy/k8s uses — `resources`, `namespace`, `configMapGenerator` (literals, create/merge, hash
 * suffix and name references), `images`, and inline JSON 6902 `patches` — and refuses any other
 * field, so the manifests cannot drift outside what it understands. Where kubectl exists, a test
 * checks that both give the same objects.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

/**
 * Any field of a rendered object. Rendered objects are checked by the Kubernetes schemas and by
 * the tests' assertions, not by static types.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type Field = any;

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [key: string]: Field };
  [key: string]: Field;
};

export type Renderer = 'kubectl' | 'offline';

/** Whether `kubectl kustomize` (kustomize v5 or later) is on this machine. */
export function kubectlKustomizeAvailable(): boolean {
  const result = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  if (result.status !== 0) return false;
  try {
    const version = JSON.parse(result.stdout).kustomizeVersion as string | undefined;
    return Number(/^v(\d+)/.exec(version ?? '')?.[1] ?? 0) >= 5;
  } catch {
    return false;
  }
}

export function renderWithKubectl(dir: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${result.stderr}`);
  return parseObjects(result.stdout, dir);
}

/** kubectl when it is here (unless DEPLOY_RENDERER=offline), the offline resolver otherwise. */
export function render(dir: string): { objects: K8sObject[]; renderer: Renderer } {
  return process.env.DEPLOY_RENDERER !== 'offline' && kubectlKustomizeAvailable()
    ? { objects: renderWithKubectl(dir), renderer: 'kubectl' }
    : { objects: renderOffline(dir), renderer: 'offline' };
}

export function parseObjects(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${source}: ${document.errors[0]!.message}`);
    const value = document.toJS();
    return value ? [value as K8sObject] : [];
  });
}

interface ConfigMapGenerator {
  name: string;
  behavior?: 'create' | 'merge' | 'replace';
  literals?: string[];
}

interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
}

interface Patch {
  target: { kind: string; name: string };
  patch: string;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  configMapGenerator?: ConfigMapGenerator[];
  images?: ImageOverride[];
  patches?: Patch[];
}

const UNDERSTOOD_FIELDS = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'resources',
  'configMapGenerator',
  'images',
  'patches',
]);
const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'IngressClass',
  'PriorityClass',
]);

/** The offline resolver (see the file comment): the same objects `kubectl kustomize dir` prints. */
export function renderOffline(dir: string): K8sObject[] {
  const generated = new Set<K8sObject>();
  const objects = build(dir, generated);
  // Like kustomize, hash generated ConfigMaps last, on their final data, and rename references.
  const renamed = new Map<string, string>();
  for (const configMap of generated) {
    const hashed = `${configMap.metadata.name}-${configMapHash(configMap)}`;
    renamed.set(configMap.metadata.name, hashed);
    configMap.metadata.name = hashed;
  }
  for (const object of objects) renameConfigMapReferences(object, renamed);
  return objects;
}

function build(dir: string, generated: Set<K8sObject>): K8sObject[] {
  const kustomization = parseYaml(
    readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'),
  ) as Kustomization;
  for (const field of Object.keys(kustomization)) {
    if (!UNDERSTOOD_FIELDS.has(field)) {
      throw new Error(`${dir}/kustomization.yaml: the offline renderer does not understand \`${field}\``);
    }
  }
  const objects: K8sObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const target = path.resolve(dir, resource);
    if (statSync(target).isDirectory()) objects.push(...build(target, generated));
    else objects.push(...parseObjects(readFileSync(target, 'utf8'), target));
  }
  for (const generator of kustomization.configMapGenerator ?? []) {
    applyGenerator(dir, generator, objects, generated);
  }
  for (const { target, patch } of kustomization.patches ?? []) {
    const object = objects.find((o) => o.kind === target.kind && o.metadata.name === target.name);
    if (!object) throw new Error(`${dir}: no ${target.kind} ${target.name} to patch`);
    const operations = parseYaml(patch);
    if (!Array.isArray(operations)) throw new Error(`${dir}: only JSON 6902 patches (a list of operations)`);
    for (const operation of operations) applyJsonPatch(object, operation);
  }
  if (kustomization.namespace) {
    for (const object of objects) {
      if (!CLUSTER_SCOPED_KINDS.has(object.kind)) object.metadata.namespace = kustomization.namespace;
    }
  }
  for (const image of kustomization.images ?? []) {
    for (const object of objects) overrideImage(object, image);
  }
  return objects;
}

function applyGenerator(
  dir: string,
  generator: ConfigMapGenerator,
  objects: K8sObject[],
  generated: Set<K8sObject>,
): void {
  const unknown = Object.keys(generator).filter((key) => !['name', 'behavior', 'literals'].includes(key));
  if (unknown.length > 0) throw new Error(`${dir}: configMapGenerator field ${unknown[0]} is not understood`);
  const data: Record<string, string> = {};
  for (const literal of generator.literals ?? []) {
    const separator = literal.indexOf('=');
    if (separator <= 0) throw new Error(`${dir}: literal ${literal} is not KEY=value`);
    data[literal.slice(0, separator)] = literal.slice(separator + 1);
  }
  const existing = [...generated].find((o) => o.metadata.name === generator.name);
  const behavior = generator.behavior ?? 'create';
  if (behavior === 'create') {
    if (existing) throw new Error(`${dir}: ConfigMap ${generator.name} is generated twice`);
    const configMap: K8sObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: generator.name },
      data,
    };
    generated.add(configMap);
    objects.push(configMap);
    return;
  }
  if (!existing) throw new Error(`${dir}: no ConfigMap ${generator.name} to ${behavior}`);
  existing.data = behavior === 'merge' ? { ...existing.data, ...data } : data;
}

/**
 * kustomize's name suffix (api/hasher `HashRNode`): sha256 of Go's JSON of {data, kind, name}, its
 * first 10 hex digits with 0, 1, 3, a, e mapped to g, h, k, m, t. The name it hashes is empty:
 * `getNodeValues` looks up "metadata/name" as one field name, which finds nothing (kustomize
 * v5.5, checked against `kubectl kustomize` by deploy/test/k8s.test.ts).
 */
export function configMapHash(configMap: K8sObject): string {
  const data = configMap.data as Record<string, string>;
  const sortedData = Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((key) => [key, data[key]]),
  );
  const json = goJson({ data: sortedData, kind: 'ConfigMap', name: '' });
  const hex = createHash('sha256').update(json).digest('hex').slice(0, 10);
  const letters: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex].map((c) => letters[c] ?? c).join('');
}

/** JSON as Go's encoding/json writes it: sorted keys (given), and <, >, & escaped. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

function renameConfigMapReferences(node: unknown, renamed: Map<string, string>): void {
  if (Array.isArray(node)) {
    for (const item of node) renameConfigMapReferences(item, renamed);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  for (const key of ['configMapRef', 'configMapKeyRef', 'configMap']) {
    const reference = record[key] as { name?: string } | undefined;
    if (reference?.name && renamed.has(reference.name)) reference.name = renamed.get(reference.name)!;
  }
  for (const value of Object.values(record)) renameConfigMapReferences(value, renamed);
}

interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

function applyJsonPatch(object: K8sObject, operation: JsonPatchOperation): void {
  const tokens = operation.path
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = tokens.pop();
  if (last === undefined) throw new Error(`JSON patch: empty path ${operation.path}`);
  let parent: unknown = object;
  for (const token of tokens) {
    parent = (parent as Record<string, unknown>)?.[token];
    if (parent === undefined) throw new Error(`JSON patch: ${operation.path} has no parent`);
  }
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (operation.op === 'add') parent.splice(index, 0, operation.value);
    else if (operation.op === 'replace') parent[index] = operation.value;
    else parent.splice(index, 1);
    return;
  }
  const container = parent as Record<string, unknown>;
  if (operation.op !== 'add' && !(last in container)) {
    throw new Error(`JSON patch: ${operation.op} ${operation.path}, which does not exist`);
  }
  if (operation.op === 'remove') delete container[last];
  else if (operation.op === 'add' || operation.op === 'replace') container[last] = operation.value;
  else throw new Error(`JSON patch: operation ${String(operation.op)} is not understood`);
}

function overrideImage(object: K8sObject, image: ImageOverride): void {
  for (const container of podContainers(object)) {
    const match = /^([^:@]+(?::\d+\/[^:@]+)?)(?::([^@]+))?$/.exec(container.image);
    if (!match || match[1] !== image.name) continue;
    container.image = `${image.newName ?? image.name}:${image.newTag ?? match[2] ?? 'latest'}`;
  }
}

/** Every container (and init container) of a workload's pod template, or of a Pod. */
export function podContainers(
  object: K8sObject,
): Array<{ name: string; image: string; [key: string]: Field }> {
  const podSpec = podSpecOf(object);
  return podSpec ? [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])] : [];
}

export function podSpecOf(object: K8sObject): Field {
  if (object.kind === 'Pod') return object.spec;
  if (object.kind === 'CronJob') return object.spec?.jobTemplate?.spec?.template?.spec;
  return object.spec?.template?.spec;
}

/** Every kustomization directory under `root` that is an overlay (has no parent kustomization). */
export function listKustomizations(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => path.basename(file) === 'kustomization.yaml')
    .map((file) => path.join(root, path.dirname(file)))
    .sort();
}
