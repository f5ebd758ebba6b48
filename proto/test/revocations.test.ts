import type { ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRevocationServiceClient,
  fromRevocationEvent,
  fromRevocationSnapshot,
  GrpcStatus,
  isLasting,
  type Revocation,
  RevocationServiceService,
  type RunningGrpcServer,
  requireServiceCredential,
  revocationService,
  startGrpcServer,
  toRevocationEvent,
  toRevocationSnapshot,
  type WatchRevocationsResponse,
} from '../src/index.ts';

const TOKEN = 'a-service-token-for-tests-only-0123456789';

describe('Revocation on the wire', () => {
  const revocations: Revocation[] = [
    { kind: 'api_key', keyId: 'key-1' },
    { kind: 'google_connection', userId: 'user-2' },
    { kind: 'grant', grantId: 'grant-1', coversUntil: 1_800_000_000_000 },
    { kind: 'person', userId: 'user-1', revokedAt: 1_799_999_000_000, coversUntil: 1_800_000_000_000 },
    { kind: 'signing_key', keyId: 'kid-1', coversUntil: 1_800_000_000_000 },
    { kind: 'provider_reset', resetAt: 1_799_999_000_000, coversUntil: 1_800_000_000_000 },
  ];

  it.each(revocations)('round-trips the event %j', (revocation) => {
    expect(fromRevocationEvent(toRevocationEvent(7, revocation))).toEqual({ sequence: 7, revocation });
  });

  it('reads an event naming nothing, or without a sequence, as malformed', () => {
    expect(fromRevocationEvent({ sequence: 3 })).toBeUndefined();
    expect(fromRevocationEvent({ sequence: 3, grant: { grantId: '', coversUntil: 1 } })).toBeUndefined();
    expect(fromRevocationEvent({ sequence: 0, apiKeyId: 'key-1' })).toBeUndefined();
    expect(fromRevocationEvent({ sequence: 0, googleConnectionUserId: 'user-2' })).toBeUndefined();
    expect(fromRevocationEvent({ sequence: 3, googleConnectionUserId: '' })).toBeUndefined();
  });

  it('round-trips a snapshot, keeping the latest provider reset, and refuses one without timing', () => {
    const lasting = revocations.filter(isLasting);
    expect(lasting.map((revocation) => revocation.kind)).not.toContain('google_connection');
    const older = { kind: 'provider_reset' as const, resetAt: 1_000, coversUntil: 2_000 };
    const content = { revocations: [older, ...lasting], heartbeatIntervalMs: 250, staleAfterMs: 1_000 };
    expect(fromRevocationSnapshot(toRevocationSnapshot(content))).toEqual({
      ...content,
      revocations: lasting,
    });
    expect(fromRevocationSnapshot(toRevocationSnapshot({ ...content, staleAfterMs: 0 }))).toBeUndefined();
  });
});

describe('RevocationService behind the service credential', () => {
  let server: RunningGrpcServer;
  beforeAll(async () => {
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      serviceToken: TOKEN,
      services: [
        revocationService({
          watchRevocations(call) {
            call.on('data', (request: { probe: number }) =>
              call.write({ probeEcho: request.probe, heartbeat: {} } satisfies WatchRevocationsResponse),
            );
            call.on('end', () => call.end());
          },
        }),
      ],
    });
  });
  afterAll(() => server.close(1_000));

  function firstAnswer(serviceToken: string) {
    const client = createRevocationServiceClient({ address: `127.0.0.1:${server.port}`, serviceToken });
    const stream = client.watchRevocations();
    return new Promise<WatchRevocationsResponse>((resolve, reject) => {
      stream.on('data', (message: WatchRevocationsResponse) => {
        resolve(message);
        stream.cancel();
      });
      stream.on('error', reject);
      stream.write({ probe: 41, acknowledged: 0 });
    }).finally(() => client.close());
  }

  it('streams to a caller with the credential', async () => {
    expect(await firstAnswer(TOKEN)).toMatchObject({ probeEcho: 41, heartbeat: {} });
  });

  it('ends the stream of a caller without it with UNAUTHENTICATED, unseen by the handler', async () => {
    const refusal = (await firstAnswer('not-the-service-token-at-all-000').catch(
      (error) => error,
    )) as ServiceError;
    expect(refusal.code).toBe(GrpcStatus.UNAUTHENTICATED);
  });

  it('refuses to guard a method that streams one way only', () => {
    const oneWay = {
      watch: { ...RevocationServiceService.watchRevocations, requestStream: false },
    };
    expect(() => requireServiceCredential({ watch: () => {} }, TOKEN, oneWay)).toThrow(/streams one way/);
  });
});
