import { randomBytes } from 'node:crypto';
import {
  type AccessTokenFacts,
  createRevocationServiceClient,
  createTokenBrokerClient,
  fromRevocationEvent,
  GrpcStatus,
  type RunningGrpcServer,
  revocationService,
  startGrpcServer,
  tokenBrokerService,
  type WatchRevocationsResponse,
} from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createEdgeRevocationQueries } from '../src/edge-revocations/edge-revocation-queries.ts';
import { createEdgeRevocations } from '../src/edge-revocations/edge-revocations.ts';
import { createInProcessRevocationBus } from '../src/edge-revocations/revocation-bus.ts';
import { createRevocationStreams, streamTiming } from '../src/edge-revocations/revocation-streams.ts';
import { tokenBrokerHandlers } from '../src/grpc/token-broker-service.ts';

const logger = createLogger({ service: 'test', level: 'silent' });
const TOKEN = randomBytes(32).toString('base64url');
// Long enough that "before the bound" cannot be a matter of a busy machine.
const timing = streamTiming(1_000);

let database: TestDatabase;
let pool: DatabasePool;
let server: RunningGrpcServer;
let edge: ReturnType<typeof createEdgeRevocations>;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.url, logger);
  pool = createDatabasePool(database.url, 4);
  const queries = createEdgeRevocationQueries(pool);
  const bus = createInProcessRevocationBus();
  const streams = createRevocationStreams({
    snapshot: () => queries.lasting(),
    hearing: () => true,
    timing,
    logger,
  });
  edge = createEdgeRevocations({ queries, bus, streams, timing, accessTokenTtlSeconds: 60, logger });
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken: TOKEN,
    services: [
      revocationService({ watchRevocations: streams.watch }),
      tokenBrokerService({
        checkRevocations: tokenBrokerHandlers({
          logger,
          apiKeys: { resolveMany: notHere, leaseAllowance: notHere },
          googleTokens: { getAccessToken: notHere },
          revocations: edge,
        }).checkRevocations,
      }),
    ],
  });
});

function notHere(): never {
  throw new Error('not used by these tests');
}
afterAll(async () => {
  await server?.close(1_000);
  await pool?.end();
  await database?.close();
});

/** A replica's stream by hand: what it receives, and whether it acknowledges events. */
function replica(options: { acknowledges: boolean }) {
  const client = createRevocationServiceClient({ address: `127.0.0.1:${server.port}`, serviceToken: TOKEN });
  const stream = client.watchRevocations();
  const received: WatchRevocationsResponse[] = [];
  let snapshotArrived: () => void;
  const snapshot = new Promise<void>((resolve) => {
    snapshotArrived = resolve;
  });
  stream.on('data', (message: WatchRevocationsResponse) => {
    received.push(message);
    if (message.snapshot) snapshotArrived();
    if (message.event && options.acknowledges)
      stream.write({ probe: 0, acknowledged: message.event.sequence });
  });
  stream.on('error', () => {});
  stream.write({ probe: 1, acknowledged: 0 });
  return {
    received,
    snapshot,
    events: () => received.flatMap((message) => (message.event ? [fromRevocationEvent(message.event)] : [])),
    close() {
      stream.cancel();
      client.close();
    },
  };
}

describe('edge_revocations', () => {
  it('keeps a revocation while it may refuse a token, the later instant of two, and sweeps it after', async () => {
    const queries = createEdgeRevocationQueries(pool);
    const now = Date.now();
    await queries.record({ kind: 'grant', grantId: 'grant-live', coversUntil: now + 60_000 });
    await queries.record({ kind: 'grant', grantId: 'grant-over', coversUntil: now - 1_000 });
    await queries.record({
      kind: 'person',
      userId: 'user-1',
      revokedAt: now - 5_000,
      coversUntil: now + 60_000,
    });
    await queries.record({
      kind: 'person',
      userId: 'user-1',
      revokedAt: now - 9_000,
      coversUntil: now + 30_000,
    });
    const lasting = await queries.lasting();
    expect(lasting).toContainEqual({ kind: 'grant', grantId: 'grant-live', coversUntil: now + 60_000 });
    expect(lasting).toContainEqual({
      kind: 'person',
      userId: 'user-1',
      revokedAt: now - 5_000,
      coversUntil: now + 60_000,
    });
    expect(lasting.some((entry) => entry.kind === 'grant' && entry.grantId === 'grant-over')).toBe(false);
    expect(await queries.sweep()).toBeGreaterThanOrEqual(1);
    const { rows } = await pool.query("SELECT 1 FROM edge_revocations WHERE subject = 'grant-over'");
    expect(rows).toEqual([]);
  });
});

describe('announcing a revocation', () => {
  it('gives a replica connecting later the revocation in its snapshot', async () => {
    await edge.grantRevoked('grant-before-connect');
    const late = replica({ acknowledges: true });
    try {
      await late.snapshot;
      expect(late.received[0]?.snapshot?.grants.map((grant) => grant.grantId)).toContain(
        'grant-before-connect',
      );
      expect(late.received[0]?.probeEcho).toBe(1);
    } finally {
      late.close();
    }
  });

  it('returns once an acknowledging replica has the event', async () => {
    const acking = replica({ acknowledges: true });
    try {
      await acking.snapshot;
      const started = performance.now();
      await edge.grantRevoked('grant-acked');
      expect(performance.now() - started).toBeLessThan(timing.staleAfterMs);
      expect(acking.events()).toContainEqual({
        sequence: 1,
        revocation: expect.objectContaining({ kind: 'grant', grantId: 'grant-acked' }),
      });
    } finally {
      acking.close();
    }
  });

  it('waits for a replica that does not acknowledge until it has certainly stopped trusting itself', async () => {
    const silent = replica({ acknowledges: false });
    try {
      await silent.snapshot;
      const started = performance.now();
      await edge.apiKeyRevoked('key-1');
      // The replica received it but never said so: the announcer may not return before the
      // replica's own staleness bound has passed since the event was sent.
      expect(performance.now() - started).toBeGreaterThanOrEqual(timing.staleAfterMs);
      expect(silent.events()).toContainEqual({
        sequence: 1,
        revocation: { kind: 'api_key', keyId: 'key-1' },
      });
    } finally {
      silent.close();
    }
  });
});

describe('CheckRevocations (asked by a replica whose stream lags)', () => {
  const facts = (overrides: Partial<AccessTokenFacts>): AccessTokenFacts => ({
    grantId: '',
    userId: 'user-unrevoked',
    issuedAt: Math.floor(Date.now() / 1000),
    keyId: 'kid-1',
    ...overrides,
  });

  it('judges each token by what is recorded, by the rule the stream’s receiver applies', async () => {
    const broker = createTokenBrokerClient({ address: `127.0.0.1:${server.port}`, serviceToken: TOKEN });
    try {
      await edge.grantRevoked('grant-checked');
      const issuedBefore = Math.floor(Date.now() / 1000) - 1;
      await edge.personRevoked('user-checked');
      const issuedAfter = Math.floor(Date.now() / 1000) + 1;
      const { revoked } = await broker.checkRevocations({
        tokens: [
          facts({ grantId: 'grant-checked' }),
          facts({ grantId: 'grant-unrevoked' }),
          facts({ userId: 'user-checked', issuedAt: issuedBefore }),
          facts({ userId: 'user-checked', issuedAt: issuedAfter }),
          facts({}),
          facts({ grantId: 'grant-checked' }),
        ],
      });
      expect(revoked).toEqual([true, false, true, false, false, true]);
    } finally {
      broker.close();
    }
  });

  it('refuses more than 256 tokens in a call, and a token without its user, with INVALID_ARGUMENT', async () => {
    const broker = createTokenBrokerClient({ address: `127.0.0.1:${server.port}`, serviceToken: TOKEN });
    try {
      const status = (tokens: AccessTokenFacts[]) =>
        broker.checkRevocations({ tokens }).then(
          () => GrpcStatus.OK,
          (error: { code: number }) => error.code,
        );
      expect(await status(Array.from({ length: 257 }, () => facts({})))).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(await status([facts({ userId: '' })])).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(await status(Array.from({ length: 256 }, () => facts({})))).toBe(GrpcStatus.OK);
    } finally {
      broker.close();
    }
  });
});
