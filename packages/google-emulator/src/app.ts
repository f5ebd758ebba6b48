import { healthRoutes, type Logger, requestLog } from '@sheetgate/service-runtime';
import Koa from 'koa';
import { createAccessControl } from './access-control.ts';
import { adminRoutes } from './admin/admin-routes.ts';
import { FaultInjector } from './admin/faults.ts';
import { QuotaEnforcer } from './admin/quotas.ts';
import { RequestStats } from './admin/request-stats.ts';
import type { AccessControl } from './contracts.ts';
import { commentsRoutes, MemoryCommentStore } from './drive/comments-routes.ts';
import { createDriveLibrary } from './drive/drive-library.ts';
import { MemoryFileStore } from './drive/file-store.ts';
import { filesRoutes } from './drive/files-routes.ts';
import { MemoryPermissionStore, permissionsRoutes } from './drive/permissions-routes.ts';
import { uploadRoutes } from './drive/upload-routes.ts';
import { emulatorErrors } from './http/error-middleware.ts';
import { authorizeRoutes } from './oauth/authorize-routes.ts';
import { type OAuthClientConfig, OAuthClients } from './oauth/clients.ts';
import { discoveryRoutes } from './oauth/discovery-routes.ts';
import { GrantStore } from './oauth/grant-store.ts';
import type { SigningKey } from './oauth/signing-key.ts';
import { tokenRoutes } from './oauth/token-routes.ts';
import { pickerRoutes } from './picker/picker-routes.ts';
import type { SheetsPart } from './sheets-part.ts';

export interface EmulatorAppOptions {
  publicUrl: string;
  accounts: string[];
  clients: OAuthClientConfig[];
  accessTokenTtlSeconds: number;
  authorizationCodeTtlSeconds: number;
  /** Whether the chooser's scope checkboxes start ticked (default) or unticked as at Google. */
  scopeCheckboxes: 'ticked' | 'unticked';
  signingKey: SigningKey;
  logger: Logger;
  /** The Sheets part: its router over the shared files and access control, and Drive's view of it. */
  sheets: (shared: { files: MemoryFileStore; access: AccessControl; publicUrl: string }) => SheetsPart;
}

/** The whole emulator as one Koa app: every Google host folded onto one origin, Google's paths kept. */
export function createEmulatorApp(options: EmulatorAppOptions) {
  const { publicUrl, logger } = options;
  const accounts = options.accounts.map((email) => email.toLowerCase());
  const grants = new GrantStore(options.accessTokenTtlSeconds, options.authorizationCodeTtlSeconds);
  const clients = new OAuthClients(options.clients);
  const files = new MemoryFileStore();
  const permissions = new MemoryPermissionStore();
  const access = createAccessControl(grants, (fileId, account) => permissions.accessOf(fileId, account));
  const faults = new FaultInjector();
  const quotas = new QuotaEnforcer(grants);
  const stats = new RequestStats();
  const sheets = options.sheets({ files, access, publicUrl });
  const driveDeps = { files, access, spreadsheets: sheets.spreadsheets, publicUrl };
  const drive = createDriveLibrary(driveDeps);
  const comments = new MemoryCommentStore();

  const routers = [
    authorizeRoutes({
      clients,
      grants,
      accounts: () => accounts,
      scopesTicked: options.scopeCheckboxes === 'ticked',
    }),
    tokenRoutes({ clients, grants, signingKey: options.signingKey, issuer: publicUrl }),
    discoveryRoutes({ issuer: publicUrl, signingKey: options.signingKey, grants }),
    adminRoutes({
      files,
      grants,
      knownClient: (clientId) => clients.find(clientId) !== undefined,
      faults,
      quotas,
      stats,
      accounts: () => accounts,
      publicUrl,
      spreadsheets: sheets.spreadsheets,
      seedSpreadsheet: sheets.seedSpreadsheet,
      permissions,
    }),
    filesRoutes(driveDeps, drive),
    uploadRoutes(driveDeps, drive),
    permissionsRoutes(driveDeps, drive, permissions),
    commentsRoutes(driveDeps, drive, comments),
    pickerRoutes(driveDeps),
    sheets.router,
  ];

  const app = new Koa();
  app.use(requestLog(logger));
  app.use(stats.middleware());
  app.use(emulatorErrors(logger));
  app.use(healthRoutes([]));
  app.use(faults.middleware());
  app.use(quotas.middleware());
  for (const router of routers) app.use(router.routes());
  return { app, files, grants, access, permissions };
}
