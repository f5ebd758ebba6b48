/** Baseline: a bare grpc-js TokenBroker whose ResolveApiKeys answers a constant, same credential check. */
import { startGrpcServer, TokenBrokerServiceService } from '@sheetgate/proto';

const server = await startGrpcServer({
  host: '127.0.0.1',
  port: Number(process.env.PORT),
  serviceToken: process.env.INTERNAL_SERVICE_TOKEN!,
  services: [
    {
      definition: TokenBrokerServiceService,
      handlers: {
        resolveApiKeys: (_call: unknown, callback: (error: null, response: unknown) => void) =>
          callback(null, { results: [{ resolved: { userId: 'u', scopes: ['sheets:read'], keyId: 'k' } }] }),
      },
    },
  ],
});
process.stdout.write(`ready ${server.port}\n`);
