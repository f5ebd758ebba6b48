import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer, listen } from '@sheetgate/service-runtime';
import type { JWTPayload } from 'jose';
import { createIdpApp } from './app.ts';
import { DEFAULT_PEOPLE, type IdpClient, type Person } from './directory.ts';
import { createSigningKey } from './signing-key.ts';
import { ID_JAG_TYP } from './spec-names.ts';

export type { ExchangePolicy, IdpClient, Person } from './directory.ts';
export { DEFAULT_PEOPLE } from './directory.ts';
export * from './spec-names.ts';

export interface EnterpriseIdpEmulatorOptions {
  /** 0 picks any free port. Default 8095. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The issuer (and public URL); `http://host:port` unless given. */
  publicUrl?: string;
  /** Default alice and bob at example.com. */
  people?: Person[];
  clients?: IdpClient[];
  /** ID-JAG lifetime; default 300 s, as the extension's example. */
  idJagTtlSeconds?: number;
}

export interface EnterpriseIdpEmulator {
  /** The issuer identifier, without a trailing slash. */
  issuer: string;
  jwksUri: string;
  tokenEndpoint: string;
  port: number;
  /**
   * Signs `claims` with the IdP's own key, as an ID-JAG (`typ` oauth-id-jag+jwt) unless `header`
   * says otherwise: for tests of what a Resource Authorization Server must refuse (an expired
   * grant, a missing claim) that the IdP's policy would never issue.
   */
  sign(claims: JWTPayload, header?: { typ?: string }): Promise<string>;
  close(): Promise<void>;
}

/** Starts the enterprise IdP emulator on its own HTTP server. */
export async function startEnterpriseIdpEmulator(
  options: EnterpriseIdpEmulatorOptions = {},
): Promise<EnterpriseIdpEmulator> {
  const host = options.host ?? '127.0.0.1';
  const { promise: handler, resolve: handlerMade } = Promise.withResolvers<http.RequestListener>();
  const server = http.createServer((request, response) => {
    void handler.then((handle) => handle(request, response));
  });
  await listen(server, options.port ?? 8095, host, 'ENTERPRISE_IDP_EMULATOR_PORT');
  const port = (server.address() as AddressInfo).port;
  const issuer = (options.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  const signingKey = await createSigningKey();
  const app = createIdpApp({
    issuer,
    people: options.people ?? DEFAULT_PEOPLE,
    clients: options.clients ?? [],
    signingKey,
    idJagTtlSeconds: options.idJagTtlSeconds ?? 300,
  });
  handlerMade(app.callback());
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint: `${issuer}/token`,
    port,
    sign: (claims, header = {}) => signingKey.sign(claims, { typ: ID_JAG_TYP, ...header }),
    close: () => closeHttpServer(server),
  };
}
