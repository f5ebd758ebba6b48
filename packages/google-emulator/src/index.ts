import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer, createLogger, type Logger, listen } from '@sheetgate/service-runtime';
import { DEFAULT_ACCOUNTS } from './accounts.ts';
import { createEmulatorApp } from './app.ts';
import type { OAuthClientConfig } from './oauth/clients.ts';
import { createSigningKey } from './oauth/signing-key.ts';
import { sheetsPart } from './sheets-part.ts';

export { DEFAULT_ACCOUNTS } from './accounts.ts';
export { GOOGLE_SCOPES, SPREADSHEET_MIME_TYPE } from './contracts.ts';
export type { OAuthClientConfig } from './oauth/clients.ts';

export interface GoogleEmulatorOptions {
  /** 0 picks any free port. Default 8090. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The URL clients reach the emulator at (the ID-token issuer); `http://host:port` unless given. */
  publicUrl?: string;
  /** Default alice@example.com and bob@example.com. */
  accounts?: string[];
  /** OAuth clients; when none are given, one client `emulator-client` / `emulator-secret` accepting any redirect URI. */
  clients?: OAuthClientConfig[];
  /** Access-token lifetime; default 3600 as at Google. */
  accessTokenTtlSeconds?: number;
  /** How long an authorization code can be exchanged; default 600 (Google's is about ten minutes). */
  authorizationCodeTtlSeconds?: number;
  /**
   * How the chooser's scope checkboxes start. Default `ticked`, so that a person or test that just
   * picks an account grants everything; `unticked` (with "Select all") is Google's granular consent.
   */
  scopeCheckboxes?: 'ticked' | 'unticked';
  logger?: Logger;
}

export interface GoogleEmulator {
  /** The public URL, without a trailing slash. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_CLIENT: OAuthClientConfig = {
  clientId: 'emulator-client',
  clientSecret: 'emulator-secret',
};

/** Starts the Google emulator on its own HTTP server. */
export async function startGoogleEmulator(options: GoogleEmulatorOptions = {}): Promise<GoogleEmulator> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? createLogger({ service: 'google-emulator', level: 'silent' });
  // The app needs the URL, which needs the port (0 in tests: any free one). A request that arrives
  // while the app is made waits for it: with no 'request' listener yet, Node would leave it
  // unanswered (a readiness probe then waited out its 2 s timeout).
  const { promise: handler, resolve: handlerMade } = Promise.withResolvers<http.RequestListener>();
  const server = http.createServer((request, response) => {
    void handler.then((handle) => handle(request, response));
  });
  await listen(server, options.port ?? 8090, host, 'GOOGLE_EMULATOR_PORT');
  const port = (server.address() as AddressInfo).port;
  const url = (options.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  const { app } = createEmulatorApp({
    publicUrl: url,
    accounts: options.accounts ?? DEFAULT_ACCOUNTS,
    clients: options.clients && options.clients.length > 0 ? options.clients : [DEFAULT_CLIENT],
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
    authorizationCodeTtlSeconds: options.authorizationCodeTtlSeconds ?? 600,
    scopeCheckboxes: options.scopeCheckboxes ?? 'ticked',
    signingKey: await createSigningKey(),
    logger,
    sheets: sheetsPart,
  });
  handlerMade(app.callback());
  return { url, port, close: () => closeHttpServer(server) };
}
