import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { accountFor } from '../accounts.ts';
import type { DriveFile, NativeSpreadsheets } from '../contracts.ts';
import { SPREADSHEET_IMPORT_MIME_TYPES, SPREADSHEET_MIME_TYPE } from '../contracts.ts';
import { fileResource } from '../drive/file-resource.ts';
import type { MemoryFileStore } from '../drive/file-store.ts';
import { type MemoryPermissionStore, seedPermission } from '../drive/permissions-routes.ts';
import { readJsonBody } from '../http/request-body.ts';
import type { GrantStore } from '../oauth/grant-store.ts';
import { FAULT_REASONS, FAULT_STATUSES, type FaultInjector, validFaultMatch } from './faults.ts';
import { QUOTA_NAMES, type QuotaEnforcer } from './quotas.ts';
import type { RequestStats } from './request-stats.ts';
import type { SeedSpreadsheet } from './seed-spreadsheet.ts';

/** Bad input to the admin API: a 400 with `{"error":"invalid_request","error_description":…}`. */
export class AdminInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminInputError';
  }
}

const email = z.string().trim().toLowerCase().pipe(z.email());
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const values = z.array(z.array(cell));

const revokeBody = z.strictObject({ email });

const faultBody = z
  .strictObject({
    match: z
      .string()
      .min(1)
      .refine(
        validFaultMatch,
        'expected a method id such as "sheets.spreadsheets.values.get" or a path regex',
      ),
    status: z.union(FAULT_STATUSES.map((status) => z.literal(status))).optional(),
    reason: z.enum([...new Set(Object.values(FAULT_REASONS).flat())]).optional(),
    retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
    latencyMs: z.number().int().min(0).max(60_000).optional(),
    count: z.number().int().min(1).max(10_000).optional(),
    afterCall: z.boolean().optional(),
  })
  .refine(
    (fault) => fault.status !== undefined || fault.latencyMs !== undefined,
    'give a status, a latencyMs, or both',
  )
  .refine((fault) => !fault.afterCall || fault.status !== undefined, {
    message: 'afterCall needs a status',
    path: ['afterCall'],
  })
  .superRefine((fault, context) => {
    if (fault.reason === undefined) return;
    const allowed: readonly string[] = fault.status ? FAULT_REASONS[fault.status] : [];
    if (!allowed.includes(fault.reason)) {
      const statuses = FAULT_STATUSES.filter((status) =>
        (FAULT_REASONS[status] as readonly string[]).includes(fault.reason!),
      );
      context.addIssue({
        code: 'custom',
        path: ['reason'],
        message: `reason ${fault.reason} goes with status ${statuses.join(' or ')}`,
      });
    }
  });

// Each quota a count of requests per minute; absent or null is unlimited.
const quotasBody = z.strictObject(
  Object.fromEntries(
    QUOTA_NAMES.map((name) => [name, z.number().int().min(1).max(1_000_000).nullable().optional()]),
  ) as Record<(typeof QUOTA_NAMES)[number], z.ZodOptional<z.ZodNullable<z.ZodNumber>>>,
);

/** Who else the file is shared with, as permissions.create would share it (no notification sent). */
const permissionBody = z
  .strictObject({
    type: z.enum(['user', 'group', 'domain', 'anyone']).default('user'),
    role: z.enum(['reader', 'commenter', 'writer']),
    emailAddress: email.optional(),
    domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^([a-z0-9-]+\.)+[a-z]{2,63}$/, 'expected a domain')
      .optional(),
  })
  .refine(
    (given) =>
      (given.type === 'user' || given.type === 'group') === (given.emailAddress !== undefined) &&
      (given.type === 'domain') === (given.domain !== undefined),
    'a user or group needs emailAddress, a domain its domain, anyone neither',
  );

const seedFile = z
  .strictObject({
    name: z.string().min(1),
    mimeType: z.string().min(1).optional(),
    /** A native spreadsheet's sheets, or `values` for one sheet named "Sheet1". */
    sheets: z
      .array(z.strictObject({ title: z.string().min(1), values }))
      .min(1)
      .optional(),
    values: values.optional(),
    /** Bytes of a non-native file, or of a csv/xlsx/ods to convert when mimeType is the spreadsheet type. */
    contentBase64: z.base64().optional(),
    /** The type of `contentBase64` when it is converted. */
    sourceMimeType: z.enum(SPREADSHEET_IMPORT_MIME_TYPES).optional(),
    /** OAuth clients that opened the file: what drive.file lets them see. None unless given. */
    openedBy: z.array(z.string().min(1)).optional(),
    modifiedTime: z.iso.datetime({ offset: true }).optional(),
    trashed: z.boolean().optional(),
    parents: z.array(z.string()).optional(),
    /** The shared drive the file is in (the account is then one of its members). */
    driveId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/)
      .optional(),
    permissions: z.array(permissionBody).max(100).optional(),
  })
  .superRefine((file, context) => {
    const native =
      (file.mimeType ?? (file.sheets || file.values ? SPREADSHEET_MIME_TYPE : undefined)) ===
      SPREADSHEET_MIME_TYPE;
    if ((file.sheets || file.values) && !native) {
      context.addIssue({ code: 'custom', message: 'sheets/values need the spreadsheet mimeType' });
    }
    if (file.sheets && file.values)
      context.addIssue({ code: 'custom', message: 'give sheets or values, not both' });
    if (native && file.contentBase64 && (file.sheets || file.values)) {
      context.addIssue({ code: 'custom', message: 'give contentBase64 or sheets/values, not both' });
    }
    if (native && file.contentBase64 && !file.sourceMimeType) {
      context.addIssue({ code: 'custom', message: 'converting contentBase64 needs its sourceMimeType' });
    }
    if (!native && !file.mimeType)
      context.addIssue({ code: 'custom', message: 'mimeType is required for a non-spreadsheet file' });
  });

const seedBody = z.strictObject({ email, files: z.array(seedFile).min(1).max(1000) });

const grantBody = z.strictObject({
  email,
  clientId: z.string().min(1).max(256),
  scopes: z
    .array(z.string().regex(/^[\x21-\x7e]{1,200}$/, 'expected a scope'))
    .min(1)
    .max(20),
});

export interface AdminDeps {
  files: MemoryFileStore;
  grants: GrantStore;
  knownClient: (clientId: string) => boolean;
  faults: FaultInjector;
  quotas: QuotaEnforcer;
  stats: RequestStats;
  accounts: () => string[];
  publicUrl: string;
  spreadsheets: Pick<NativeSpreadsheets, 'importInto' | 'reset'>;
  seedSpreadsheet: SeedSpreadsheet;
  permissions: MemoryPermissionStore;
}

async function parseBody<T>(ctx: Context, schema: z.ZodType<T>): Promise<T> {
  let body: unknown;
  try {
    body = await readJsonBody(ctx);
  } catch {
    throw new AdminInputError('the body is not valid JSON');
  }
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    throw new AdminInputError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '),
    );
  }
  return parsed.data;
}

/** The emulator's admin API for tests and development, under /__emulator. */
export function adminRoutes(deps: AdminDeps) {
  const router = new Router({ prefix: '/__emulator' });
  const knownAccount = (address: string) => {
    if (!deps.accounts().includes(address)) throw new AdminInputError(`no such account: ${address}`);
  };

  router.post('/revoke', async (ctx) => {
    const { email: address } = await parseBody(ctx, revokeBody);
    knownAccount(address);
    ctx.body = { email: address, revokedTokens: deps.grants.revokeAccount(address) };
  });

  router.get('/faults', (ctx) => {
    ctx.body = { faults: deps.faults.list() };
  });
  router.post('/faults', async (ctx) => {
    const fault = await parseBody(ctx, faultBody);
    deps.faults.add(fault);
    ctx.status = 201;
    ctx.body = { faults: deps.faults.list() };
  });
  router.delete('/faults', (ctx) => {
    deps.faults.clear();
    ctx.status = 204;
  });

  router.get('/quotas', (ctx) => {
    ctx.set('cache-control', 'no-store');
    ctx.body = deps.quotas.get();
  });
  router.post('/quotas', async (ctx) => {
    const limits = await parseBody(ctx, quotasBody);
    deps.quotas.set(
      Object.fromEntries(Object.entries(limits).map(([name, limit]) => [name, limit ?? undefined])),
    );
    ctx.body = deps.quotas.get();
  });

  router.get('/stats', (ctx) => {
    ctx.set('cache-control', 'no-store');
    ctx.body = deps.stats.snapshot();
  });
  router.delete('/stats', (ctx) => {
    deps.stats.clear();
    ctx.status = 204;
  });

  router.post('/reset', (ctx) => {
    deps.spreadsheets.reset();
    deps.files.clear();
    deps.permissions.clear();
    deps.grants.reset();
    deps.faults.clear();
    deps.quotas.set({});
    deps.stats.clear();
    ctx.status = 204;
  });

  // A grant the account gave the client earlier, outside this emulator's lifetime (for instance
  // through a deployment being replaced): its refresh token, as the code exchange would have given.
  router.post('/grants', async (ctx) => {
    const grant = await parseBody(ctx, grantBody);
    knownAccount(grant.email);
    if (!deps.knownClient(grant.clientId)) throw new AdminInputError(`no such client: ${grant.clientId}`);
    const scopes = [...new Set(grant.scopes)];
    deps.grants.recordGrant(grant.email, grant.clientId, scopes);
    const token = deps.grants.issueRefreshToken(grant.email, grant.clientId, scopes);
    ctx.status = 201;
    ctx.body = { refresh_token: token.token, scope: scopes.join(' '), sub: accountFor(grant.email).sub };
  });

  router.post('/seed', async (ctx) => {
    const seed = await parseBody(ctx, seedBody);
    knownAccount(seed.email);
    for (const spec of seed.files) {
      if (spec.permissions?.some((given) => given.emailAddress === seed.email))
        throw new AdminInputError(`${spec.name}: ${seed.email} owns it already`);
    }
    const created: DriveFile[] = [];
    for (const spec of seed.files) created.push(await seedOne(deps, seed.email, spec));
    ctx.status = 201;
    ctx.body = { files: created.map((file) => fileResource(file, deps.publicUrl, seed.email)) };
  });
  return router;
}

async function seedOne(deps: AdminDeps, owner: string, spec: z.infer<typeof seedFile>): Promise<DriveFile> {
  const mimeType = spec.mimeType ?? SPREADSHEET_MIME_TYPE;
  const content = spec.contentBase64 ? Buffer.from(spec.contentBase64, 'base64') : undefined;
  const native = mimeType === SPREADSHEET_MIME_TYPE;
  const file = deps.files.create(
    {
      name: spec.name,
      mimeType,
      ownerEmail: owner,
      ...(spec.parents ? { parents: spec.parents } : {}),
      ...(spec.driveId ? { driveId: spec.driveId } : {}),
      ...(!native ? { content: content ?? Buffer.alloc(0) } : {}),
    },
    '',
  );
  for (const clientId of spec.openedBy ?? []) file.appClientIds.add(clientId);
  try {
    if (native && content) {
      await deps.spreadsheets.importInto(file.id, spec.name, content, spec.sourceMimeType!);
    } else if (native) {
      const sheets = spec.sheets ?? [{ title: 'Sheet1', values: spec.values ?? [] }];
      deps.seedSpreadsheet(file.id, spec.name, sheets);
    }
  } catch (error) {
    deps.files.delete(file.id);
    throw new AdminInputError(`${spec.name}: could not convert the content (${(error as Error).message})`);
  }
  for (const given of spec.permissions ?? []) seedPermission(deps.permissions, file, given);
  if (spec.trashed) file.trashed = true;
  if (spec.modifiedTime) file.modifiedTime = new Date(spec.modifiedTime).toISOString();
  return file;
}
