/** Baseline: a bare grpc-js TokenBroker whose ResolveApiKeys answers a constant, same credential check. */
import { ResolveApiKeysResponse, startGrpcServer, TokenBrokerServiceService } from '@sheetgate/proto';

const server = await startGrpcServer({
  host: '127.0.0.1',
  port: Number(process.env.PORT),
  serviceToken: process.env.INTERNAL_SERVICE_TOKEN!,
  services: [
    {
      definition: TokenBrokerServiceService,
      handlers: {
        resolveApiKeys: (_call: unknown, callback: (error: null, response: unknown) => void) =>
          // fromPartial: every field the codec writes, as the generated types have them.
          callback(
            null,
            ResolveApiKeysResponse.fromPartial({
              results: [{ resolved: { userId: 'u', scopes: ['sheets:read'], keyId: 'k' } }],
            }),
          ),
      },
    },
  ],
});
process.stdout.write(`ready ${server.port}\n`);
