import { randomBytes } from 'node:crypto';
import {
  discoverAuthorizationServerMetadata,
  refreshAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { type Browser, createBrowser, type Stack } from '@sheetgate/test-harness';
import { seedFiles } from './google-emulator.ts';
import { connectWithOAuth, RecordingOAuthProvider } from './oauth-client.ts';
import { createApiKey, signIn } from './people.ts';

/**
 * A person with everything a client of theirs can hold: a dashboard session, an API key, an
 * OAuth grant (access and refresh token, kept by the SDK's provider) and a spreadsheet in their
 * Google Drive whose name and cells carry a marker no one else's data contains, so a reply that
 * shows another person's marker is data crossing between people.
 */
export interface ConnectedPerson {
  email: string;
  marker: string;
  spreadsheetId: string;
  apiKey: string;
  apiKeyId: string;
  sessionCookie: string;
  browser: Browser;
  oauth: RecordingOAuthProvider;
}

/** `count` emulator accounts for GOOGLE_EMULATOR_ACCOUNTS, named so none is a prefix of another. */
export function accountEmails(count: number, label = 'person'): string[] {
  return Array.from(
    { length: count },
    (_, index) => `${label}-${String(index + 1).padStart(2, '0')}@example.com`,
  );
}

/** Signs each person in, gives them a key, an OAuth-connected MCP client and a marked spreadsheet. */
export async function connectPeople(stack: Stack, emails: string[]): Promise<ConnectedPerson[]> {
  const people: ConnectedPerson[] = [];
  for (const email of emails) {
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const [spreadsheetId] = await seedFiles(stack, email, [
      { name: `Data ${marker}`, sheets: [{ title: 'Sheet1', values: [['owner', marker]] }] },
    ]);
    const { sessionCookie, browser } = await signIn(stack, email, createBrowser());
    const key = await createApiKey(stack, sessionCookie);
    const oauth = new RecordingOAuthProvider();
    const client = await connectWithOAuth(stack, oauth, { browser, email });
    await client.close();
    people.push({
      email,
      marker,
      spreadsheetId: spreadsheetId!,
      apiKey: key.secret,
      apiKeyId: key.key!.id,
      sessionCookie,
      browser,
      oauth,
    });
  }
  return people;
}

/** The credential headers of one of the person's clients. */
export function credentialHeaders(person: ConnectedPerson, as: 'jwt' | 'key'): Record<string, string> {
  return as === 'key'
    ? { 'x-api-key': person.apiKey }
    : { authorization: `Bearer ${person.oauth.tokens()!.access_token}` };
}

/** A JSON-RPC `tools/call` body. */
export function toolCall(name: string, args: Record<string, unknown>, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

export const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

/** Headers every raw POST to /api/mcp carries besides the credential. */
export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/** Other people's markers, emails and spreadsheet ids that `reply` names (none, unless data crossed). */
export function othersNamed(reply: string, person: ConnectedPerson, everyone: ConnectedPerson[]): string[] {
  return everyone
    .filter((other) => other !== person)
    .flatMap((other) => [other.marker, other.email, other.spreadsheetId])
    .filter((value) => reply.includes(value));
}

/**
 * The person's OAuth client uses its refresh token, as the SDK does when its access token expires,
 * and keeps the new tokens (the refresh token rotates).
 */
export async function refreshGrant(stack: Stack, person: Pick<ConnectedPerson, 'oauth'>): Promise<void> {
  const metadata = await discoverAuthorizationServerMetadata(stack.baseUrl);
  const tokens = await refreshAuthorization(stack.baseUrl, {
    ...(metadata ? { metadata } : {}),
    clientInformation: person.oauth.clientInformation()!,
    refreshToken: person.oauth.tokens()!.refresh_token!,
    resource: new URL(`${stack.baseUrl}/api/mcp`),
  });
  person.oauth.saveTokens(tokens);
}
