import type { ChannelOptions } from '@grpc/grpc-js';
import { credentials } from '@grpc/grpc-js';
import {
  type RevocationEvent,
  RevocationServiceClient,
  type RevocationSnapshot,
} from '../gen/sheetgate/v1/revocations.ts';
import { INTERNAL_CHANNEL_OPTIONS } from './clients.ts';
import { serviceCredentialInterceptor } from './service-credential.ts';

/**
 * One revocation, as auth announces it and an MCP replica applies it: the one place this union is
 * defined; `toRevocationEvent`/`fromRevocationEvent` and the snapshot's pair are its wire form.
 * Instants are unix milliseconds; `coversUntil` is when every access token the entry could refuse
 * has expired, so the entry may be dropped.
 */
export type Revocation =
  | { kind: 'api_key'; keyId: string }
  | { kind: 'grant'; grantId: string; coversUntil: number }
  | { kind: 'person'; userId: string; revokedAt: number; coversUntil: number }
  | { kind: 'signing_key'; keyId: string; coversUntil: number }
  | { kind: 'provider_reset'; resetAt: number; coversUntil: number }
  /**
   * The person's Google connection changed (disconnected, reconnected, or refused by Google): a
   * replica forgets the Google access token it kept for them. Never in a snapshot: a replica
   * forgets every Google access token it kept when a snapshot arrives.
   */
  | { kind: 'google_connection'; userId: string };

/** The revocations that only happen (events) and are never in a snapshot. */
type PassingRevocation = Extract<Revocation, { kind: 'api_key' | 'google_connection' }>;

/**
 * The revocations a snapshot can hold (auth records them until `coversUntil`). API keys and Google
 * connections are not among them: what an MCP replica caches of those it drops on every snapshot.
 */
export type LastingRevocation = Exclude<Revocation, PassingRevocation>;

/** Whether a revocation is recorded for the snapshots of replicas that connect later. */
export function isLasting(revocation: Revocation): revocation is LastingRevocation {
  return revocation.kind !== 'api_key' && revocation.kind !== 'google_connection';
}

/** What a replica learns on connecting: what is revoked, and the stream's timing. */
export interface RevocationSnapshotContent {
  revocations: LastingRevocation[];
  heartbeatIntervalMs: number;
  staleAfterMs: number;
}

/** The wire form of one event (auth's side). */
export function toRevocationEvent(sequence: number, revocation: Revocation): RevocationEvent {
  const event: RevocationEvent = { sequence };
  switch (revocation.kind) {
    case 'api_key':
      return { ...event, apiKeyId: revocation.keyId };
    case 'google_connection':
      return { ...event, googleConnectionUserId: revocation.userId };
    case 'grant':
      return { ...event, grant: { grantId: revocation.grantId, coversUntil: revocation.coversUntil } };
    case 'person':
      return {
        ...event,
        person: {
          userId: revocation.userId,
          revokedAt: revocation.revokedAt,
          coversUntil: revocation.coversUntil,
        },
      };
    case 'signing_key':
      return { ...event, signingKey: { keyId: revocation.keyId, coversUntil: revocation.coversUntil } };
    case 'provider_reset':
      return {
        ...event,
        providerReset: { resetAt: revocation.resetAt, coversUntil: revocation.coversUntil },
      };
  }
}

/**
 * One event from its wire form (the MCP replica's side); undefined when it carries no revocation,
 * names nothing, or has no sequence: the replica treats that stream as broken.
 */
export function fromRevocationEvent(
  event: RevocationEvent,
): { sequence: number; revocation: Revocation } | undefined {
  if (!(event.sequence > 0)) return undefined;
  const revocation: Revocation | undefined = event.apiKeyId
    ? { kind: 'api_key', keyId: event.apiKeyId }
    : event.googleConnectionUserId
      ? { kind: 'google_connection', userId: event.googleConnectionUserId }
      : lastingFrom(event);
  return revocation ? { sequence: event.sequence, revocation } : undefined;
}

function lastingFrom(
  parts: Omit<RevocationEvent, 'sequence' | 'apiKeyId' | 'googleConnectionUserId'>,
): LastingRevocation | undefined {
  if (parts.grant?.grantId)
    return { kind: 'grant', grantId: parts.grant.grantId, coversUntil: parts.grant.coversUntil };
  if (parts.person?.userId)
    return {
      kind: 'person',
      userId: parts.person.userId,
      revokedAt: parts.person.revokedAt,
      coversUntil: parts.person.coversUntil,
    };
  if (parts.signingKey?.keyId)
    return { kind: 'signing_key', keyId: parts.signingKey.keyId, coversUntil: parts.signingKey.coversUntil };
  if (parts.providerReset && parts.providerReset.resetAt > 0)
    return {
      kind: 'provider_reset',
      resetAt: parts.providerReset.resetAt,
      coversUntil: parts.providerReset.coversUntil,
    };
  return undefined;
}

/** The wire form of a snapshot (auth's side); of several provider resets, the latest is sent. */
export function toRevocationSnapshot(content: RevocationSnapshotContent): RevocationSnapshot {
  const snapshot: RevocationSnapshot = {
    grants: [],
    persons: [],
    signingKeys: [],
    heartbeatIntervalMs: content.heartbeatIntervalMs,
    staleAfterMs: content.staleAfterMs,
  };
  for (const revocation of content.revocations) {
    if (revocation.kind === 'grant')
      snapshot.grants.push({ grantId: revocation.grantId, coversUntil: revocation.coversUntil });
    else if (revocation.kind === 'person')
      snapshot.persons.push({
        userId: revocation.userId,
        revokedAt: revocation.revokedAt,
        coversUntil: revocation.coversUntil,
      });
    else if (revocation.kind === 'signing_key')
      snapshot.signingKeys.push({ keyId: revocation.keyId, coversUntil: revocation.coversUntil });
    else if (!snapshot.providerReset || revocation.resetAt > snapshot.providerReset.resetAt)
      snapshot.providerReset = { resetAt: revocation.resetAt, coversUntil: revocation.coversUntil };
  }
  return snapshot;
}

/**
 * A snapshot from its wire form (the MCP replica's side); undefined when its timing is missing
 * (a replica cannot judge its own staleness without it). Entries naming nothing are skipped.
 */
export function fromRevocationSnapshot(snapshot: RevocationSnapshot): RevocationSnapshotContent | undefined {
  if (!(snapshot.heartbeatIntervalMs > 0) || !(snapshot.staleAfterMs > 0)) return undefined;
  const revocations = [
    ...snapshot.grants.map((grant) => lastingFrom({ grant })),
    ...snapshot.persons.map((person) => lastingFrom({ person })),
    ...snapshot.signingKeys.map((signingKey) => lastingFrom({ signingKey })),
    ...(snapshot.providerReset ? [lastingFrom({ providerReset: snapshot.providerReset })] : []),
  ].filter((revocation) => revocation !== undefined);
  return {
    revocations,
    heartbeatIntervalMs: snapshot.heartbeatIntervalMs,
    staleAfterMs: snapshot.staleAfterMs,
  };
}

/**
 * The MCP replica's client of RevocationService: `watchRevocations()` opens the stream, with the
 * service credential on it. No deadline: the stream lives as long as the replica.
 */
export function createRevocationServiceClient(options: {
  address: string;
  serviceToken: string;
  channelOptions?: ChannelOptions;
}): RevocationServiceClient {
  if (!options.address) throw new TypeError('gRPC client: an address (host:port) is required');
  if (!options.serviceToken)
    throw new TypeError('gRPC client: the service token (INTERNAL_SERVICE_TOKEN) is empty');
  return new RevocationServiceClient(options.address, credentials.createInsecure(), {
    ...INTERNAL_CHANNEL_OPTIONS,
    ...options.channelOptions,
    interceptors: [serviceCredentialInterceptor(options.serviceToken)],
  });
}
