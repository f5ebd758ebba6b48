import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { requireServiceCredential } from './service-credential.ts';

export interface GrpcServiceBinding {
  definition: ServiceDefinition;
  handlers: UntypedServiceImplementation;
}

export interface RunningGrpcServer {
  port: number;
  /** Stops accepting calls and lets in-flight ones finish (forced after `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

/**
 * Auth's internal gRPC server: plaintext on the cluster network (NetworkPolicies limit who may
 * connect, DESIGN §7.7), every handler behind the service credential.
 */
export async function startGrpcServer(options: {
  host: string;
  port: number;
  serviceToken: string;
  services: GrpcServiceBinding[];
}): Promise<RunningGrpcServer> {
  const server = new Server({ 'grpc.max_receive_message_length': 1024 * 1024 });
  for (const service of options.services) {
    server.addService(service.definition, requireServiceCredential(service.handlers, options.serviceToken));
  }
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${options.host}:${options.port}`,
      ServerCredentials.createInsecure(),
      (error, boundPort) => (error ? reject(error) : resolve(boundPort)),
    );
  });
  return {
    port,
    close(graceMs = 5_000) {
      return new Promise((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
