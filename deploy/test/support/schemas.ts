/**
 * Offline validation of rendered objects against the Kubernetes OpenAPI schemas, through
 * kubernetes-models' generated validators (types, required fields, enums, formats). Those
 * validators allow unknown fields; strict-schemas.ts refuses them.
 */
import * as models from 'kubernetes-models';
import type { K8sObject } from './kustomize.ts';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: K8sObject) => Validatable;

/** `networking.k8s.io/v1` → models.networkingK8sIo.v1; `v1` → models.v1. */
function modelFor(apiVersion: string, kind: string): ModelClass | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [undefined, apiVersion];
  const groupKey = group
    ? group
        .split('.')
        .map((part, index) => (index === 0 ? part : part[0]!.toUpperCase() + part.slice(1)))
        .join('')
    : undefined;
  const registry = models as unknown as Record<string, Record<string, Record<string, ModelClass>>>;
  const versions = groupKey
    ? registry[groupKey]
    : (registry as unknown as Record<string, Record<string, ModelClass>>);
  return versions?.[version!]?.[kind];
}

/** Throws naming the object and the schema violation; unknown kinds are an error too. */
export function validateObject(object: K8sObject): void {
  const Model = modelFor(object.apiVersion, object.kind);
  const id = `${object.kind} ${object.metadata?.name}`;
  if (!Model) throw new Error(`${id}: no Kubernetes schema for ${object.apiVersion} ${object.kind}`);
  try {
    new Model(object).validate();
  } catch (error) {
    throw new Error(`${id}: ${(error as Error).message}`);
  }
}
