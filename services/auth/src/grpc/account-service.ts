import type {
  CreateApiKeyRequest,
  CreateApiKeyResponse,
  DisconnectAppRequest,
  DisconnectAppResponse,
  ExchangeLegacySessionRequest,
  ExchangeLegacySessionResponse,
  ForgetPickedFileRequest,
  ForgetPickedFileResponse,
  GetGoogleConnectionRequest,
  GetGoogleConnectionResponse,
  GetInteractionRequest,
  GetInteractionResponse,
  GetPickerTokenRequest,
  GetPickerTokenResponse,
  GetSessionRequest,
  GetSessionResponse,
  ListApiKeysRequest,
  ListApiKeysResponse,
  ListConnectedAppsRequest,
  ListConnectedAppsResponse,
  ListPickedFilesRequest,
  ListPickedFilesResponse,
  ListRecentChangesRequest,
  ListRecentChangesResponse,
  RecordPickedFilesRequest,
  RecordPickedFilesResponse,
  RevokeApiKeyRequest,
  RevokeApiKeyResponse,
} from '@sheetgate/proto';
import { DEFAULT_TOOLSETS } from '@sheetgate/proto';
import { isInteractionUid, type Logger, SheetgateError } from '@sheetgate/service-runtime';
import type Provider from 'oidc-provider';
import { type ApiKeyLibrary, requestedExpiry } from '../api-keys/index.ts';
import type { AppChoices } from '../call-consent/app-choices.ts';
import type { CallApprovals } from '../call-consent/call-approvals.ts';
import type { ChangeJournal } from '../change-journal/change-journal.ts';
import type { AppToolsets } from '../connected-apps/app-toolsets.ts';
import type { ConnectedAppsLibrary } from '../connected-apps/connected-apps.ts';
import type { EdgeRevocations } from '../edge-revocations/edge-revocations.ts';
import type { GoogleConnectionLibrary, GoogleScopeMode, GoogleTokenBroker } from '../google/index.ts';
import type { CsrfTokens } from '../interactions/csrf.ts';
import { isLoopbackHttp } from '../oidc/redirect-policy.ts';
import type { PickedFiles } from '../picked-files/picked-files.ts';
import type { LegacySessionExchange } from '../provider-migration/legacy-sessions.ts';
import type { SessionStore } from '../sessions/index.ts';
import type { UserLibrary } from '../users/index.ts';
import { accountCallConsentHandlers } from './account-call-consent.ts';
import { apiKeyMessage } from './api-key-message.ts';
import { listPage } from './change-journal-service.ts';
import { unaryHandler } from './unary-handler.ts';

/** Google scopes that reach files beyond those Sheetgate created or was given (drive.file). */
const BROAD_FILE_SCOPES = new Set(
  ['drive', 'drive.readonly', 'spreadsheets', 'spreadsheets.readonly'].map(
    (name) => `https://www.googleapis.com/auth/${name}`,
  ),
);

/** The API-key operations the dashboard needs, from the api-keys library. */
export type ApiKeyManagement = Pick<ApiKeyLibrary, 'list' | 'create' | 'revoke' | 'setChoices'>;

/**
 * gRPC AccountService: what the web pages read, each call bound to the browser's dashboard
 * session (a missing or ended session is PERMISSION_DENIED; the web service sends the person to
 * sign in).
 */
export function accountServiceHandlers(deps: {
  logger: Logger;
  sessions: SessionStore;
  users: UserLibrary;
  csrf: CsrfTokens;
  googleConnections: GoogleConnectionLibrary;
  connectedApps: ConnectedAppsLibrary;
  apiKeys: ApiKeyManagement;
  provider: Provider;
  legacySessions: LegacySessionExchange;
  /** A revoked key is announced to every MCP replica before RevokeApiKey answers. */
  edgeRevocations: Pick<EdgeRevocations, 'apiKeyRevoked'>;
  /** What the consent screen checks for an app the person chose toolsets for before. */
  appToolsets: Pick<AppToolsets, 'chosen'>;
  /** The person's choices for apps: the consent screen's, and the dashboard's changes. */
  appChoices: Pick<AppChoices, 'chosen' | 'choose'>;
  /** Calls waiting for the person's answer on the approval page. */
  callApprovals: Pick<CallApprovals, 'show' | 'answer'>;
  /** GOOGLE_SCOPE_MODE; absent: `standard` (no Picker, no picker token). */
  scopeMode?: GoogleScopeMode;
  /** The person's Google access token for the dashboard's Picker (picked-files mode only). */
  googleTokens?: Pick<GoogleTokenBroker, 'getAccessToken'>;
  /** The files the person chose with the Picker. */
  pickedFiles?: PickedFiles;
  /** The change journal, for the dashboard's Activity (ListRecentChanges). */
  changeJournal?: ChangeJournal;
}) {
  const scopeMode = deps.scopeMode ?? 'standard';
  const pickedFiles = () => {
    if (!deps.pickedFiles) throw new SheetgateError('internal', 'picked files are not configured');
    return deps.pickedFiles;
  };
  const { logger, sessions, users, csrf } = deps;

  async function signedIn(cookie: string) {
    const session = await sessions.findByCookieValue(cookie);
    if (!session) throw new SheetgateError('permission_denied', 'no signed-in session');
    const user = await users.findById(session.userId);
    if (!user) throw new SheetgateError('permission_denied', 'no signed-in session');
    return { session, user };
  }

  return {
    ...accountCallConsentHandlers({
      logger,
      signedIn,
      apiKeys: deps.apiKeys,
      connectedApps: deps.connectedApps,
      appChoices: deps.appChoices,
      approvals: deps.callApprovals,
    }),

    getSession: unaryHandler<GetSessionRequest, GetSessionResponse>(logger, 'GetSession', async (request) => {
      const session = await sessions.findByCookieValue(request.sessionCookie);
      const user = session ? await users.findById(session.userId) : undefined;
      if (!session || !user) return { user: undefined, signOutCsrfToken: '' };
      return {
        user: { id: user.id, email: user.email, name: user.displayName ?? '' },
        signOutCsrfToken: csrf.issue('sign-out', session.id),
      };
    }),

    listApiKeys: unaryHandler<ListApiKeysRequest, ListApiKeysResponse>(
      logger,
      'ListApiKeys',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        return { keys: (await deps.apiKeys.list(user.id)).map(apiKeyMessage) };
      },
    ),

    createApiKey: unaryHandler<CreateApiKeyRequest, CreateApiKeyResponse>(
      logger,
      'CreateApiKey',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        // An ApiKeyInputError is `invalid_argument`: INVALID_ARGUMENT with its message for the person.
        const expiresAt = requestedExpiry(request, new Date());
        const { key, secret } = await deps.apiKeys.create({
          userId: user.id,
          name: request.name,
          scopes: request.scopes,
          toolsets: request.toolsets?.names,
          choices: request.choices,
          ...(expiresAt ? { expiresAt } : {}),
        });
        return { key: apiKeyMessage(key), secret };
      },
    ),

    revokeApiKey: unaryHandler<RevokeApiKeyRequest, RevokeApiKeyResponse>(
      logger,
      'RevokeApiKey',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const revoked = await deps.apiKeys.revoke(user.id, request.keyId);
        if (revoked) await deps.edgeRevocations.apiKeyRevoked(request.keyId);
        return { revoked };
      },
    ),

    getGoogleConnection: unaryHandler<GetGoogleConnectionRequest, GetGoogleConnectionResponse>(
      logger,
      'GetGoogleConnection',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const connection = await deps.googleConnections.find(user.id);
        if (!connection)
          return {
            status: 'GOOGLE_CONNECTION_STATUS_NONE',
            email: '',
            grantedScopes: [],
            partial: false,
            scopeMode,
          };
        return {
          status:
            connection.status === 'connected'
              ? 'GOOGLE_CONNECTION_STATUS_CONNECTED'
              : 'GOOGLE_CONNECTION_STATUS_REAUTH_REQUIRED',
          email: connection.email,
          grantedScopes: connection.grantedScopes,
          partial: connection.partial,
          scopeMode,
          ...(connection.hostedDomain === null ? {} : { hostedDomain: connection.hostedDomain }),
        };
      },
    ),

    getPickerToken: unaryHandler<GetPickerTokenRequest, GetPickerTokenResponse>(
      logger,
      'GetPickerToken',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const none = { accessToken: '', expiresAt: 0 };
        // In standard mode the token would reach every file in Drive: it never leaves auth.
        if (scopeMode !== 'picked-files' || !deps.googleTokens) return none;
        const result = await deps.googleTokens.getAccessToken(user.id);
        if (!result.ok) return none;
        // A grant from before the switch to picked-files may still reach every file: that token
        // stays at auth too (the person already reaches everything, and needs no Picker).
        if (result.scopes.some((scope) => BROAD_FILE_SCOPES.has(scope))) return none;
        return { accessToken: result.accessToken, expiresAt: result.expiresAt };
      },
    ),

    listPickedFiles: unaryHandler<ListPickedFilesRequest, ListPickedFilesResponse>(
      logger,
      'ListPickedFiles',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const files = await pickedFiles().list(user.id);
        return {
          files: files.map((file) => ({
            fileId: file.fileId,
            name: file.name,
            mimeType: file.mimeType,
            pickedAt: file.pickedAt.toISOString(),
          })),
        };
      },
    ),

    recordPickedFiles: unaryHandler<RecordPickedFilesRequest, RecordPickedFilesResponse>(
      logger,
      'RecordPickedFiles',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const recorded = await pickedFiles().record(user.id, request.files);
        return { recorded };
      },
    ),

    forgetPickedFile: unaryHandler<ForgetPickedFileRequest, ForgetPickedFileResponse>(
      logger,
      'ForgetPickedFile',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        return { forgotten: await pickedFiles().forget(user.id, request.fileId) };
      },
    ),

    listConnectedApps: unaryHandler<ListConnectedAppsRequest, ListConnectedAppsResponse>(
      logger,
      'ListConnectedApps',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const apps = await deps.connectedApps.list(user.id);
        return {
          apps: apps.map((app) => ({ ...app, toolsets: app.toolsets ?? [] })),
          appsResetAt: user.oauthResetAt?.toISOString() ?? '',
        };
      },
    ),

    listRecentChanges: unaryHandler<ListRecentChangesRequest, ListRecentChangesResponse>(
      logger,
      'ListRecentChanges',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        if (!deps.changeJournal) return { changes: [], nextPageToken: '' };
        return listPage(deps.changeJournal, user.id, {
          ...request,
          credentialId: '',
          sinceMs: 0,
          untilMs: 0,
        });
      },
    ),

    disconnectApp: unaryHandler<DisconnectAppRequest, DisconnectAppResponse>(
      logger,
      'DisconnectApp',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const disconnected = await deps.connectedApps.disconnect(user.id, request.clientId);
        if (disconnected) logger.info({ userId: user.id, clientId: request.clientId }, 'app disconnected');
        return { disconnected };
      },
    ),

    exchangeLegacySession: unaryHandler<ExchangeLegacySessionRequest, ExchangeLegacySessionResponse>(
      logger,
      'ExchangeLegacySession',
      async (request) => {
        const session = await deps.legacySessions.exchange(request.legacySessionCookie, {
          ...(request.userAgent ? { userAgent: request.userAgent } : {}),
          ...(request.ip ? { ip: request.ip } : {}),
        });
        return session
          ? { sessionCookie: session.cookieValue, expiresAt: session.expiresAt.toISOString() }
          : { sessionCookie: '', expiresAt: '' };
      },
    ),

    getInteraction: unaryHandler<GetInteractionRequest, GetInteractionResponse>(
      logger,
      'GetInteraction',
      async (request) => {
        const notFound: GetInteractionResponse = {
          found: false,
          prompt: 'INTERACTION_PROMPT_UNSPECIFIED',
          clientId: '',
          clientName: '',
          redirectHost: '',
          loopbackRedirect: false,
          unverifiedClient: false,
          requestedScopes: [],
          account: undefined,
          consentCsrfToken: '',
          redirectScheme: '',
          toolsets: [],
          choices: undefined,
        };
        if (!isInteractionUid(request.interactionUid)) return notFound;
        const interaction = await deps.provider.Interaction.find(request.interactionUid);
        if (!interaction) return notFound;
        const clientId = String(interaction.params.client_id ?? '');
        const client = await deps.provider.Client.find(clientId);
        const redirect = URL.parse(String(interaction.params.redirect_uri ?? ''));
        const session = request.sessionCookie
          ? await sessions.findByCookieValue(request.sessionCookie)
          : undefined;
        const account = session ? await users.findById(session.userId) : undefined;
        const isConsent = interaction.prompt.name === 'consent';
        // The consent is for the account the provider signed in, and only that account may see it.
        if (isConsent && interaction.session?.accountId !== account?.id) return notFound;
        return {
          found: true,
          prompt: isConsent ? 'INTERACTION_PROMPT_CONSENT' : 'INTERACTION_PROMPT_LOGIN',
          clientId,
          clientName: String(client?.clientName ?? clientId),
          redirectHost: redirect ? redirect.host || redirect.protocol : '',
          loopbackRedirect: redirect ? isLoopbackHttp(redirect) : false,
          redirectScheme: redirect ? redirect.protocol.slice(0, -1) : '',
          // Every client here registered itself: nothing vouches for the name it gave.
          unverifiedClient: true,
          requestedScopes: String(interaction.params.scope ?? '')
            .split(' ')
            .filter(Boolean),
          account: account
            ? { id: account.id, email: account.email, name: account.displayName ?? '' }
            : undefined,
          consentCsrfToken: isConsent ? csrf.issue('consent', interaction.uid) : '',
          toolsets:
            isConsent && account
              ? ((await deps.appToolsets.chosen(account.id, clientId)) ?? [...DEFAULT_TOOLSETS])
              : [],
          choices: isConsent && account ? await deps.appChoices.chosen(account.id, clientId) : undefined,
        };
      },
    ),
  };
}
