import {
  type Revocation,
  type RevocationServiceServer,
  type RunningGrpcServer,
  revocationService,
  startGrpcServer,
  toRevocationEvent,
  type WatchRevocationsRequest,
} from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RevocationWatch, watchRevocations } from '../src/auth/revocation-watch.ts';

// The listener hooks of the replica's end of the revocation stream (onEvent, onResync), which the
// caches kept on the stream's word use (edge-google-tokens.ts): against a scripted auth — a real
// gRPC server speaking the contract of proto/sheetgate/v1/revocations.proto.

const TOKEN = 'a-service-token-for-tests-only-0123456789';
const logger = createLogger({ service: 'test', level: 'silent' });

type Call = Parameters<RevocationServiceServer['watchRevocations']>[0];

/** One stream as the scripted auth holds it: the acknowledgements it received, and a way to send. */
interface Opened {
  acknowledged: number[];
  send(sequence: number, revocation: Revocation): void;
}

let server: RunningGrpcServer;
const streams: Opened[] = [];

beforeAll(async () => {
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken: TOKEN,
    services: [
      revocationService({
        watchRevocations(call: Call) {
          let probe = 0;
          const opened: Opened = {
            acknowledged: [],
            send: (sequence, revocation) =>
              call.write({ probeEcho: probe, event: toRevocationEvent(sequence, revocation) }),
          };
          call.on('data', (request: WatchRevocationsRequest) => {
            if (request.acknowledged) opened.acknowledged.push(request.acknowledged);
            if (!request.probe) return;
            const first = probe === 0;
            probe = request.probe;
            if (first) {
              call.write({
                probeEcho: probe,
                snapshot: {
                  grants: [],
                  persons: [],
                  signingKeys: [],
                  heartbeatIntervalMs: 100,
                  staleAfterMs: 2_000,
                },
              });
              streams.push(opened);
            } else call.write({ probeEcho: probe, heartbeat: {} });
          });
          call.on('error', () => {});
          call.on('end', () => call.end());
        },
      }),
    ],
  });
});
afterAll(() => server?.close(1_000));

let watch: RevocationWatch | undefined;
afterEach(() => {
  watch?.close();
  streams.length = 0;
});

async function eventually(check: () => boolean, what: string): Promise<void> {
  const giveUpAt = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > giveUpAt) throw new Error(`not within 20 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('revocation-watch listeners', () => {
  it('tells onResync of the snapshot and onEvent of each event, which is then acknowledged', async () => {
    watch = watchRevocations({ address: `127.0.0.1:${server.port}`, serviceToken: TOKEN, logger });
    const heard: string[] = [];
    watch.onResync(() => heard.push('resync'));
    watch.onEvent((revocation) => heard.push(revocation.kind));
    await eventually(() => watch!.isCurrent(), 'the stream is current');
    expect(heard).toEqual(['resync']);
    streams[0]!.send(1, { kind: 'google_connection', userId: 'user-1' });
    await eventually(() => streams[0]!.acknowledged.includes(1), 'event 1 acknowledged');
    expect(heard).toEqual(['resync', 'google_connection']);
  });

  it('a listener that throws leaves the event unacknowledged and reopens the stream: every listener resyncs', async () => {
    watch = watchRevocations({ address: `127.0.0.1:${server.port}`, serviceToken: TOKEN, logger });
    let resyncs = 0;
    watch.onResync(() => resyncs++);
    watch.onEvent((revocation) => {
      if (revocation.kind === 'api_key') throw new Error('a cache that could not drop the key');
    });
    await eventually(() => resyncs === 1, 'the first snapshot');
    streams[0]!.send(1, { kind: 'api_key', keyId: 'key-1' });
    await eventually(() => resyncs === 2 && streams.length === 2, 'the stream reopened with a new snapshot');
    expect(streams[0]!.acknowledged).not.toContain(1);
    await eventually(() => watch!.isCurrent(), 'current again after the new snapshot');
  });
});
