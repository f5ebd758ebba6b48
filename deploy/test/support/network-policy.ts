/**
 * A small evaluator of Kubernetes NetworkPolicy semantics, enough to ask "may this pod open a
 * connection to that pod on this port?" of the rendered manifests: a pod selected by no policy of a
 * direction allows everything in it; otherwise some rule of a selecting policy must match both the
 * peer and the port, on the egress side of the client and the ingress side of the server.
 * Supports matchLabels selectors, numeric ports and ipBlock (which matches only endpoints outside
 * the cluster); anything else throws, so a policy it cannot read fails the test loudly.
 */
import type { K8sObject } from './kustomize.ts';

export interface Endpoint {
  /** For test messages. */
  name: string;
  /** Pods: their namespace and its labels. Undefined for an address outside the cluster. */
  namespace?: { name: string; labels: Record<string, string> };
  labels: Record<string, string>;
}

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}

function selects(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  if (selector.matchExpressions?.length)
    throw new Error('matchExpressions are not supported by the evaluator');
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}

function peerMatches(peer: Peer, policyNamespace: string, endpoint: Endpoint): boolean {
  if (peer.ipBlock) return endpoint.namespace === undefined && (peer.ipBlock.except ?? []).length === 0;
  if (!endpoint.namespace) return false;
  if (peer.namespaceSelector) {
    if (!selects(peer.namespaceSelector, endpoint.namespace.labels)) return false;
  } else if (endpoint.namespace.name !== policyNamespace) {
    return false;
  }
  return selects(peer.podSelector, endpoint.labels);
}

interface Rule {
  ports?: Array<{ port?: number | string; protocol?: string; endPort?: number }>;
  from?: Peer[];
  to?: Peer[];
}

function portMatches(rule: Rule, port: number): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((p) => {
    if (p.port === undefined) return true;
    if (typeof p.port === 'string') throw new Error(`named port ${p.port} is not supported by the evaluator`);
    if ((p.protocol ?? 'TCP') !== 'TCP') return false;
    return p.endPort ? port >= p.port && port <= p.endPort : port === p.port;
  });
}

function directionAllows(
  policies: K8sObject[],
  direction: 'Ingress' | 'Egress',
  subject: Endpoint,
  peer: Endpoint,
  port: number,
): boolean {
  if (!subject.namespace) return true; // outside the cluster: not governed by these policies
  const selecting = policies.filter(
    (policy) =>
      (policy.metadata.namespace ?? '') === subject.namespace!.name &&
      selects(policy.spec.podSelector, subject.labels) &&
      policyTypes(policy).includes(direction),
  );
  if (selecting.length === 0) return true;
  return selecting.some((policy) =>
    ((direction === 'Ingress' ? policy.spec.ingress : policy.spec.egress) ?? []).some((rule: Rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      const peerOk =
        !peers ||
        peers.length === 0 ||
        peers.some((p) => peerMatches(p, policy.metadata.namespace ?? '', peer));
      return peerOk && portMatches(rule, port);
    }),
  );
}

function policyTypes(policy: K8sObject): string[] {
  if (policy.spec.policyTypes) return policy.spec.policyTypes;
  return policy.spec.egress ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** Whether `client` may open a TCP connection to `server` on `port` under these policies. */
export function mayConnect(objects: K8sObject[], client: Endpoint, server: Endpoint, port: number): boolean {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  return (
    directionAllows(policies, 'Egress', client, server, port) &&
    directionAllows(policies, 'Ingress', server, client, port)
  );
}
