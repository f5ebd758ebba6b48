import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { drive_v3 } from 'googleapis';
import type { Context } from 'koa';
import { DRIVE_READ_SCOPES, DRIVE_WRITE_SCOPES } from '../access-control.ts';
import { accountFor } from '../accounts.ts';
import type { AccessMode, Account, Caller, DriveFile } from '../contracts.ts';
import { GoogleApiError, googleErrors } from '../google-error.ts';
import { readJsonBody } from '../http/request-body.ts';
import { driveErrors } from './drive-errors.ts';
import type { DriveDeps, DriveLibrary } from './drive-library.ts';
import { applyFieldMask, type KnownFields, parseFieldMask } from './fields.ts';
import { queryString } from './files-routes.ts';
import { sharedDriveGate } from './shared-drives.ts';

const TYPES = ['user', 'group', 'domain', 'anyone'] as const;
const ROLES = ['owner', 'organizer', 'fileOrganizer', 'writer', 'commenter', 'reader'] as const;
type PermissionType = (typeof TYPES)[number];
type Role = (typeof ROLES)[number];

/** A permission the emulator keeps (the owner's is derived from the file, never stored). */
interface StoredPermission {
  id: string;
  type: PermissionType;
  role: Role;
  emailAddress?: string;
  domain?: string;
  allowFileDiscovery?: boolean;
}

/** Who was told of a new permission (sendNotificationEmail), for the admin API and tests. */
export interface SharingNotification {
  fileId: string;
  to: string;
  role: Role;
  message: string | undefined;
}

/** Every file's added permissions, in memory; forgotten with the file on an admin reset. */
export class MemoryPermissionStore {
  readonly #byFile = new Map<string, StoredPermission[]>();
  readonly notifications: SharingNotification[] = [];

  list(fileId: string): StoredPermission[] {
    return this.#byFile.get(fileId) ?? [];
  }

  put(fileId: string, permission: StoredPermission): void {
    const list = this.list(fileId).filter((existing) => existing.id !== permission.id);
    this.#byFile.set(fileId, [...list, permission]);
  }

  remove(fileId: string, permissionId: string): void {
    this.#byFile.set(
      fileId,
      this.list(fileId).filter((existing) => existing.id !== permissionId),
    );
  }

  clear(): void {
    this.#byFile.clear();
    this.notifications.length = 0;
  }

  /**
   * What the file's permissions give `account` besides ownership: a `user` permission naming it, or
   * a `domain` permission of its Workspace domain; the better of them. A `group` (the emulator knows
   * no members) and `anyone` (Google opens such a file to whoever has its link) open it to nobody.
   */
  accessOf(fileId: string, account: Pick<Account, 'email' | 'hostedDomain'>): AccessMode | undefined {
    let best: AccessMode | undefined;
    for (const permission of this.list(fileId)) {
      const grantee =
        (permission.type === 'user' && permission.emailAddress === account.email) ||
        (permission.type === 'domain' &&
          account.hostedDomain !== undefined &&
          permission.domain === account.hostedDomain);
      if (!grantee) continue;
      if (WRITING_ROLES.has(permission.role)) return 'write';
      best = 'read';
    }
    return best;
  }
}

/** Roles that may change a file's content (https://developers.google.com/workspace/drive/api/guides/ref-roles). */
const WRITING_ROLES: ReadonlySet<Role> = new Set(['owner', 'organizer', 'fileOrganizer', 'writer']);

/** A permission as the seed API gives it (admin-routes.ts): stored as permissions.create stores it. */
export function seedPermission(
  store: MemoryPermissionStore,
  file: DriveFile,
  given: {
    type: 'user' | 'group' | 'domain' | 'anyone';
    role: 'reader' | 'commenter' | 'writer';
    emailAddress?: string | undefined;
    domain?: string | undefined;
  },
): void {
  const who = (given.type === 'domain' ? given.domain : given.emailAddress)?.toLowerCase();
  store.put(file.id, {
    id: permissionIdFor(given.type, who, false),
    type: given.type,
    role: given.role,
    ...(given.type === 'user' || given.type === 'group' ? { emailAddress: who! } : {}),
    ...(given.type === 'domain' ? { domain: who! } : {}),
    ...(given.type === 'domain' || given.type === 'anyone' ? { allowFileDiscovery: false } : {}),
  });
}

const PERMISSION_KEYS = new Set([
  'kind',
  'id',
  'type',
  'role',
  'emailAddress',
  'domain',
  'displayName',
  'allowFileDiscovery',
  'deleted',
  'pendingOwner',
  'photoLink',
  'expirationTime',
  'permissionDetails',
  'teamDrivePermissionDetails',
  'view',
  'inheritedPermissionsDisabled',
]);
const PERMISSION_FIELDS: KnownFields = { keys: PERMISSION_KEYS };
const PERMISSION_LIST_FIELDS: KnownFields = {
  keys: new Set(['kind', 'nextPageToken', 'permissions']),
  nested: { permissions: PERMISSION_FIELDS },
};
/** What Drive returns without `fields`. */
const DEFAULT_PERMISSION_MASK = 'kind,id,type,role';
const DEFAULT_LIST_MASK = 'kind,nextPageToken,permissions(kind,id,type,role)';

const permissionErrors = {
  notFound: (permissionId: string) =>
    new GoogleApiError({
      code: 404,
      status: 'NOT_FOUND',
      message: `Permission not found: ${permissionId}.`,
      reason: 'notFound',
      location: 'permissionId',
      locationType: 'parameter',
    }),
  invalid: (field: string, message: string) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message,
      reason: 'invalid',
      location: field,
      locationType: 'other',
    }),
  required: (field: string, message: string) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message,
      reason: 'required',
      location: field,
      locationType: 'other',
    }),
  invalidSharingRequest: (message: string) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: `Bad Request. User message: "${message}"`,
      reason: 'invalidSharingRequest',
    }),
  forbidden: (reason: string, message: string) =>
    new GoogleApiError({ code: 403, status: 'PERMISSION_DENIED', message, reason }),
};

/** Drive's ids for a permission: a Google account's own permission id, `anyoneWithLink`, or a digest. */
function permissionIdFor(type: PermissionType, who: string | undefined, discoverable: boolean): string {
  if (type === 'anyone') return discoverable ? 'anyone' : 'anyoneWithLink';
  if (type === 'user' && who) return accountFor(who).sub;
  const digest = createHash('sha256')
    .update(`${type}:${who ?? ''}`)
    .digest();
  return (digest.readBigUInt64BE(0) % 10n ** 20n).toString().padStart(20, '0');
}

function ownerPermission(file: DriveFile): drive_v3.Schema$Permission {
  const owner = accountFor(file.ownerEmail);
  return {
    kind: 'drive#permission',
    id: owner.sub,
    type: 'user',
    role: 'owner',
    emailAddress: owner.email,
    displayName: owner.name,
    deleted: false,
    pendingOwner: false,
  };
}

function resource(permission: StoredPermission): drive_v3.Schema$Permission {
  return {
    kind: 'drive#permission',
    id: permission.id,
    type: permission.type,
    role: permission.role,
    ...(permission.emailAddress
      ? { emailAddress: permission.emailAddress, displayName: permission.emailAddress }
      : {}),
    ...(permission.domain ? { domain: permission.domain, displayName: permission.domain } : {}),
    ...(permission.allowFileDiscovery !== undefined
      ? { allowFileDiscovery: permission.allowFileDiscovery }
      : {}),
    deleted: false,
    pendingOwner: false,
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

async function readPermissionBody(ctx: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await readJsonBody(ctx);
  } catch {
    throw googleErrors.badRequest('Invalid JSON payload received.', 'parseError');
  }
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw googleErrors.badRequest('Invalid JSON payload received. Expected an object.', 'parseError');
  }
  return body as Record<string, unknown>;
}

function parseRole(value: unknown, file: DriveFile): Role {
  if (value === undefined || value === null || value === '')
    throw permissionErrors.required('permission.role', 'The permission role field is required.');
  if (typeof value !== 'string' || !(ROLES as readonly string[]).includes(value)) {
    throw permissionErrors.invalid('permission.role', `The provided role is not valid: ${String(value)}.`);
  }
  if ((value === 'organizer' || value === 'fileOrganizer') && file.driveId === undefined) {
    throw permissionErrors.invalid(
      'permission.role',
      `The ${value} role is only valid for items in shared drives.`,
    );
  }
  return value as Role;
}

function booleanFlag(ctx: Context, name: string): boolean | undefined {
  const value = queryString(ctx, name);
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw driveErrors.invalidParameter(name, `Invalid value '${value}'. Values must be true or false`);
}

/**
 * Drive v3 permissions: create, list, get, update, delete. Reading needs read access to the file;
 * changing its permissions needs write access, and under `drive.file` a file the app neither
 * created nor was opened with is not found (404), as Google answers. Permissions are recorded and
 * answered, and a `user` or `domain` permission opens the file to that account (accessOf).
 */
export function permissionsRoutes(deps: DriveDeps, drive: DriveLibrary, permissions: MemoryPermissionStore) {
  const { access, files } = deps;
  const router = new Router({ prefix: '/drive/v3/files/:fileId/permissions' });
  router.param('fileId', sharedDriveGate(files));

  /** The file whose permissions change: one the caller may not write is not found. */
  const writableFile = (caller: Caller, fileId: string): DriveFile => {
    const file = drive.fileFor(caller, fileId, 'read');
    if (!access.canAccess(caller, file, 'write', 'drive')) throw driveErrors.fileNotFound(fileId);
    return file;
  };
  const all = (file: DriveFile) => [ownerPermission(file), ...permissions.list(file.id).map(resource)];
  const respond = (ctx: Context, permission: drive_v3.Schema$Permission) => {
    ctx.body = applyFieldMask(
      permission,
      parseFieldMask(queryString(ctx, 'fields') || DEFAULT_PERMISSION_MASK),
      PERMISSION_FIELDS,
    );
  };
  const findIn = (file: DriveFile, permissionId: string) => {
    const found = all(file).find((permission) => permission.id === permissionId);
    if (!found) throw permissionErrors.notFound(permissionId);
    return found;
  };

  router.get('/', (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_READ_SCOPES);
    const file = drive.fileFor(caller, ctx.params.fileId!, 'read');
    const pageSize = Number(queryString(ctx, 'pageSize') ?? 100);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      throw driveErrors.invalidParameter(
        'pageSize',
        `Invalid value '${pageSize}'. Values must be within the range: [1, 100]`,
      );
    }
    const token = queryString(ctx, 'pageToken');
    const offset = token ? Number(Buffer.from(token, 'base64url').toString('utf8')) : 0;
    if (!Number.isInteger(offset) || offset < 0)
      throw driveErrors.invalidParameter('pageToken', 'Invalid Value');
    const list = all(file);
    const next = offset + pageSize;
    const body: drive_v3.Schema$PermissionList = {
      kind: 'drive#permissionList',
      ...(next < list.length ? { nextPageToken: Buffer.from(String(next)).toString('base64url') } : {}),
      permissions: list.slice(offset, next),
    };
    ctx.body = applyFieldMask(
      body,
      parseFieldMask(queryString(ctx, 'fields') || DEFAULT_LIST_MASK),
      PERMISSION_LIST_FIELDS,
    );
  });

  router.get('/:permissionId', (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_READ_SCOPES);
    const file = drive.fileFor(caller, ctx.params.fileId!, 'read');
    respond(ctx, findIn(file, ctx.params.permissionId!));
  });

  router.post('/', async (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    const file = writableFile(caller, ctx.params.fileId!);
    const body = await readPermissionBody(ctx);
    const { type } = body;
    if (type === undefined || type === null || type === '')
      throw permissionErrors.required('permission.type', 'The permission type field is required.');
    if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) {
      throw permissionErrors.invalid(
        'permission.type',
        `The provided permission type is not valid: ${String(type)}.`,
      );
    }
    const role = parseRole(body.role, file);
    const notify = booleanFlag(ctx, 'sendNotificationEmail');
    const transferOwnership = booleanFlag(ctx, 'transferOwnership') ?? false;
    let who: string | undefined;
    if (type === 'user' || type === 'group') {
      const email = body.emailAddress;
      if (email === undefined || email === null || email === '') {
        throw permissionErrors.required(
          'permission.emailAddress',
          `The permission emailAddress field is required for type ${type}.`,
        );
      }
      if (typeof email !== 'string' || !EMAIL.test(email))
        throw permissionErrors.invalid(
          'permission.emailAddress',
          `The email address is not valid: ${String(email)}.`,
        );
      who = email.toLowerCase();
    } else {
      if (notify !== undefined) {
        throw permissionErrors.invalidSharingRequest(
          'Notifications can only be sent for permissions of type user or group.',
        );
      }
      if (type === 'domain') {
        const domain = body.domain;
        if (domain === undefined || domain === null || domain === '')
          throw permissionErrors.required(
            'permission.domain',
            'The permission domain field is required for type domain.',
          );
        if (typeof domain !== 'string' || !DOMAIN.test(domain))
          throw permissionErrors.invalid('permission.domain', `The domain is not valid: ${String(domain)}.`);
        who = domain.toLowerCase();
      }
    }
    if (role === 'owner' && !transferOwnership) {
      throw permissionErrors.forbidden(
        'consentRequiredForOwnershipTransfer',
        'The transferOwnership parameter must be enabled when the permission role is owner.',
      );
    }
    if (who === file.ownerEmail) {
      throw permissionErrors.invalidSharingRequest('The owner of a file already has access to it.');
    }
    const discoverable = body.allowFileDiscovery === true;
    const permission: StoredPermission = {
      id: permissionIdFor(type as PermissionType, who, discoverable),
      type: type as PermissionType,
      role,
      ...(type === 'user' || type === 'group' ? { emailAddress: who! } : {}),
      ...(type === 'domain' ? { domain: who! } : {}),
      ...(type === 'domain' || type === 'anyone' ? { allowFileDiscovery: discoverable } : {}),
    };
    // Sharing again with the same person, group, domain or link replaces the role, as at Google.
    permissions.put(file.id, permission);
    // sendNotificationEmail "defaults to true for users and groups, and is not allowed for other
    // requests" (https://developers.google.com/workspace/drive/api/reference/rest/v3/permissions/create).
    if ((type === 'user' || type === 'group') && notify !== false) {
      permissions.notifications.push({
        fileId: file.id,
        to: who!,
        role,
        message: queryString(ctx, 'emailMessage'),
      });
    }
    files.touch(file.id);
    respond(ctx, resource(permission));
  });

  router.patch('/:permissionId', async (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    const file = writableFile(caller, ctx.params.fileId!);
    const permissionId = ctx.params.permissionId!;
    const existing = findIn(file, permissionId);
    const body = await readPermissionBody(ctx);
    const role = parseRole(body.role, file);
    if (existing.role === 'owner') {
      throw permissionErrors.forbidden(
        'insufficientFilePermissions',
        'The owner’s role cannot be changed; transfer ownership to another user instead.',
      );
    }
    if (role === 'owner' && booleanFlag(ctx, 'transferOwnership') !== true) {
      throw permissionErrors.forbidden(
        'consentRequiredForOwnershipTransfer',
        'The transferOwnership parameter must be enabled when the permission role is owner.',
      );
    }
    const stored = permissions.list(file.id).find((permission) => permission.id === permissionId)!;
    const updated = { ...stored, role };
    permissions.put(file.id, updated);
    files.touch(file.id);
    respond(ctx, resource(updated));
  });

  router.delete('/:permissionId', (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    const file = writableFile(caller, ctx.params.fileId!);
    const existing = findIn(file, ctx.params.permissionId!);
    if (existing.role === 'owner') {
      throw permissionErrors.forbidden('cannotRemoveOwner', 'The owner of a file cannot be removed.');
    }
    permissions.remove(file.id, existing.id!);
    files.touch(file.id);
    ctx.status = 204;
  });

  return router;
}
