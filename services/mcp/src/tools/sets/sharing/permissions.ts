import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { readPermission, readPermissions } from '../../../journal/drive-images.ts';
import {
  granteeOf,
  PERMISSION_IMAGE_FIELDS,
  type PermissionImage,
  permissionImage,
  sameGrantee,
  sharingSummary,
} from '../../../journal/drive-payloads.ts';
import { markOutbound } from '../../../journal/outbound-marks.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { restricts } from '../../guards/outbound-ceiling.ts';
import { holdOutbound } from '../../guards/outbound-guard.ts';
import { CHANGE, READ } from '../../kit/annotations.ts';
import { anyFileId, changeIdOutput, dryRun, dryRunOutput } from '../../kit/common-schemas.ts';
import { ALL_DRIVES } from '../../kit/drive-options.ts';
import { drivePageAnswer, pageToken } from '../../kit/drive-pages.ts';
import { changeOfSheetgatesFile } from '../../kit/sheetgate-files.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

const permissionId = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, 'a permissionId has only letters, digits, - and _');
const shareRole = z.enum(['reader', 'commenter', 'writer']);

/** A change of sharing: giving the same role twice leaves one permission. */
const SHARING_CHANGE = { ...CHANGE, idempotentHint: true };

const permissionOutput = z.object({
  permissionId: z.string(),
  type: z.string(),
  role: z.string(),
  emailAddress: z.string().nullable(),
  domain: z.string().nullable(),
});
const PERMISSION_FIELDS = 'id, type, role, emailAddress, domain';

function permissionOf(permission: {
  id?: string | null;
  type?: string | null;
  role?: string | null;
  emailAddress?: string | null;
  domain?: string | null;
}) {
  return {
    permissionId: permission.id ?? '',
    type: permission.type ?? '',
    role: permission.role ?? '',
    emailAddress: permission.emailAddress ?? null,
    domain: permission.domain ?? null,
  };
}

/**
 * Runs a change of a file's sharing. Under drive.file Google lets Sheetgate change the sharing
 * only of files it created or that were opened with it, and answers 404 (or 403) for the others:
 * said here with what to do instead.
 */
function sharingChange<T>(fileId: string, call: () => Promise<T>): Promise<T> {
  return changeOfSheetgatesFile(
    fileId,
    `Not found among the files Sheetgate may change: Sheetgate can change the sharing only of files it created or that were opened with it, and ${fileId} is not one (or is not in your Drive). Share it in Google Drive instead, or copy it with copy_spreadsheet — the copy is Sheetgate's — and share the copy.`,
    call,
  );
}

/** share_file, list_permissions, update_permission and remove_permission (Drive permissions). */
export function sharingTools(deps: ToolDeps) {
  const { drive, callGoogle, journal } = deps;
  /** update_permission's grantee as describeOutbound read it, for the same call's run. */
  const readFirst = new WeakMap<object, PermissionImage>();
  /**
   * One permission as it is now: what a dry run of a change or removal names, and what the change
   * journal keeps of it (the one more read of a journaled change or removal).
   */
  const permissionNow = (
    { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
    fileId: string,
    id: string,
  ) => sharingChange(fileId, () => readPermission(deps, auth, signal, fileId, id));
  /** Journals a sharing change: the grantee's permission before and after it. */
  const record = (
    auth: ToolContext['auth'],
    tool: string,
    fileId: string,
    before: PermissionImage | null,
    after: PermissionImage | null,
    summary = sharingSummary(before, after),
  ) =>
    journal?.record(auth, {
      tool,
      spreadsheetId: fileId,
      ranges: [granteeOf((after ?? before)!)],
      cells: 0,
      rows: 0,
      summary,
      payload: { v: 1, kind: 'permission', fileId, before, after },
    });
  return [
    defineTool({
      name: 'share_file',
      toolset: 'sharing',
      title: 'Share a file',
      description:
        'Shares a file Sheetgate made or opened with a person, group, domain or anyone with the link.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: SHARING_CHANGE,
      inputSchema: z.object({
        fileId: anyFileId,
        type: z.enum(['user', 'group', 'domain', 'anyone']).default('user'),
        role: shareRole,
        emailAddress: z.email().max(320).optional().describe('user or group.'),
        domain: z
          .string()
          .max(253)
          // A refinement rather than a regex: tools/list says it by example, not again as a pattern.
          .refine(
            (domain) => /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domain),
            'a domain such as example.com',
          )
          .optional()
          .describe('e.g. example.com'),
        sendNotificationEmail: z.boolean().optional().describe('Default true.'),
        emailMessage: z.string().max(2_000).optional(),
        dryRun,
      }),
      outputSchema: permissionOutput.extend({
        permissionId: z.string().nullable(),
        fileName: z.string().nullable(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, { auth, signal }) {
        const person = input.type === 'user' || input.type === 'group';
        if (person && !input.emailAddress)
          throw new ToolError(`sharing with a ${input.type} needs its emailAddress`);
        if (!person && input.emailAddress)
          throw new ToolError(`emailAddress is for type user or group, not ${input.type}`);
        if (input.type === 'domain' && !input.domain)
          throw new ToolError('sharing with a domain needs domain');
        if (input.type !== 'domain' && input.domain)
          throw new ToolError(`domain is for type domain, not ${input.type}`);
        if (!person && (input.sendNotificationEmail !== undefined || input.emailMessage !== undefined)) {
          throw new ToolError(
            'notifications (sendNotificationEmail, emailMessage) go only to a user or group',
          );
        }
        if (input.sendNotificationEmail === false && input.emailMessage !== undefined)
          throw new ToolError('emailMessage needs sendNotificationEmail (it is the notification’s text)');
        const planned = {
          type: input.type,
          role: input.role,
          emailAddress: input.emailAddress?.toLowerCase() ?? null,
          domain: input.domain?.toLowerCase() ?? null,
        };
        if (input.dryRun) {
          const { data: file } = await callGoogle(auth.userId, signal, (request) =>
            drive.files.get({ fileId: input.fileId, fields: 'id, name', ...ALL_DRIVES }, request),
          );
          return {
            structuredContent: { permissionId: null, ...planned, fileName: file.name ?? null, dryRun: true },
            text: `Dry run: would share ${file.name} with ${granteeOf(planned)} as ${input.role}. Nothing was changed.`,
          };
        }
        // The change journal keeps what the grantee had before (sharing again replaces the role).
        const granted: PermissionImage = {
          id: '',
          type: input.type,
          role: input.role,
          ...(planned.emailAddress ? { emailAddress: planned.emailAddress } : {}),
          ...(planned.domain ? { domain: planned.domain } : {}),
        };
        const before = journal
          ? ((
              await sharingChange(input.fileId, () => readPermissions(deps, auth, signal, input.fileId))
            ).find((each) => sameGrantee(each, granted)) ?? null)
          : null;
        const { data } = await sharingChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.permissions.create(
              {
                fileId: input.fileId,
                fields: PERMISSION_IMAGE_FIELDS,
                requestBody: {
                  type: input.type,
                  role: input.role,
                  ...(planned.emailAddress ? { emailAddress: planned.emailAddress } : {}),
                  ...(planned.domain ? { domain: planned.domain } : {}),
                },
                // Google refuses the flag for a domain or anyone: sent only for a user or group.
                ...(person ? { sendNotificationEmail: input.sendNotificationEmail ?? true } : {}),
                ...(input.emailMessage !== undefined ? { emailMessage: input.emailMessage } : {}),
                ...ALL_DRIVES,
              },
              request,
            ),
          ),
        );
        const permission = permissionOf(data);
        const after = permissionImage(data);
        const changeId = record(
          auth,
          'share_file',
          input.fileId,
          before,
          after,
          `shared with ${granteeOf(after)} as ${after.role}${before ? ` (was ${before.role})` : ''}`,
        );
        return {
          structuredContent: { ...permission, fileName: null, ...(changeId ? { changeId } : {}) },
          text: `Shared ${input.fileId} with ${granteeOf(permission)} as ${permission.role} (permissionId ${permission.permissionId}).${changeNote(changeId)}`,
        };
      },
    }),

    defineTool({
      name: 'list_permissions',
      toolset: 'sharing',
      title: 'List who a file is shared with',
      description: 'Lists who has access to a file, and their role.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({ fileId: anyFileId, pageToken }),
      outputSchema: z.object({
        permissions: z.array(permissionOutput),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, { auth, signal }) {
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          drive.permissions.list(
            {
              fileId: input.fileId,
              pageSize: 100,
              pageToken: input.pageToken,
              fields: `nextPageToken, permissions(${PERMISSION_FIELDS})`,
              ...ALL_DRIVES,
            },
            request,
          ),
        );
        const permissions = (data.permissions ?? []).map(permissionOf);
        const lines = permissions.map(
          (permission) =>
            `${granteeOf(permission)}: ${permission.role}  (permissionId ${permission.permissionId})`,
        );
        return drivePageAnswer('permissions', permissions, lines, 'No permissions.', data.nextPageToken);
      },
    }),

    defineTool({
      name: 'update_permission',
      toolset: 'sharing',
      title: 'Change a sharing role',
      description: 'Changes a permission’s role on a file Sheetgate made or opened.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: SHARING_CHANGE,
      inputSchema: z.object({ fileId: anyFileId, permissionId, role: shareRole, dryRun }),
      outputSchema: permissionOutput.extend({
        previousRole: z.string().nullable(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      // A raised role for a grantee outside is outbound, known once the grantee is read: said to
      // the consent step before the call runs (one permissions.get, as describeLoss reads).
      async describeOutbound(input, { auth, signal }) {
        if (!deps.outbound) return [];
        const now = await permissionNow({ auth, signal }, input.fileId, input.permissionId);
        readFirst.set(input, now);
        const call = { name: 'update_permission', args: input };
        return holdOutbound(deps.outbound, call, { auth, signal }, { permission: now });
      },
      async run(input, { auth, signal }) {
        // The permission describeOutbound read for this very call, else read now.
        const read = readFirst.get(input);
        readFirst.delete(input);
        const readNow = () =>
          read ? Promise.resolve(read) : permissionNow({ auth, signal }, input.fileId, input.permissionId);
        // Held to the operator's ceiling by the grantee read, and marked in the journal.
        const hold = async (now: PermissionImage) => {
          if (!deps.outbound) return;
          const facts = { permission: now };
          const call = { name: 'update_permission', args: input };
          markOutbound(await holdOutbound(deps.outbound, call, { auth, signal }, facts));
        };
        if (input.dryRun) {
          const now = await readNow();
          await hold(now);
          const current = permissionOf(now);
          return {
            structuredContent: { ...current, role: input.role, previousRole: current.role, dryRun: true },
            text: `Dry run: would change ${granteeOf(current)} from ${current.role} to ${input.role}. Nothing was changed.`,
          };
        }
        const before =
          read ?? (journal || (deps.outbound && restricts(deps.outbound.ceiling)) ? await readNow() : null);
        if (before) await hold(before);
        const { data } = await sharingChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.permissions.update(
              {
                fileId: input.fileId,
                permissionId: input.permissionId,
                fields: PERMISSION_IMAGE_FIELDS,
                requestBody: { role: input.role },
                ...ALL_DRIVES,
              },
              request,
            ),
          ),
        );
        const permission = permissionOf(data);
        const changeId = before
          ? record(auth, 'update_permission', input.fileId, before, permissionImage(data))
          : undefined;
        return {
          structuredContent: {
            ...permission,
            previousRole: before?.role ?? null,
            ...(changeId ? { changeId } : {}),
          },
          text: `${granteeOf(permission)} is now ${permission.role} of ${input.fileId}${before ? ` (was ${before.role})` : ''}.${changeNote(changeId)}`,
        };
      },
    }),

    defineTool({
      name: 'remove_permission',
      toolset: 'sharing',
      title: 'Stop sharing with someone',
      description: 'Removes a permission (not the owner’s) from a file Sheetgate made or opened.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { ...SHARING_CHANGE, destructiveHint: true },
      inputSchema: z.object({ fileId: anyFileId, permissionId, dryRun }),
      outputSchema: z.object({
        fileId: z.string(),
        permissionId: z.string(),
        removed: z.boolean(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.dryRun) {
          const current = await permissionNow({ auth, signal }, input.fileId, input.permissionId);
          return {
            structuredContent: {
              fileId: input.fileId,
              permissionId: input.permissionId,
              removed: false,
              dryRun: true,
            },
            text: `Dry run: would remove ${granteeOf(current)}'s ${current.role} access. Nothing was changed.`,
          };
        }
        const before = journal
          ? await permissionNow({ auth, signal }, input.fileId, input.permissionId)
          : null;
        await sharingChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.permissions.delete(
              { fileId: input.fileId, permissionId: input.permissionId, ...ALL_DRIVES },
              request,
            ),
          ),
        );
        const changeId = before ? record(auth, 'remove_permission', input.fileId, before, null) : undefined;
        return {
          structuredContent: {
            fileId: input.fileId,
            permissionId: input.permissionId,
            removed: true,
            ...(changeId ? { changeId } : {}),
          },
          text: `Removed permission ${input.permissionId}${before ? ` (${granteeOf(before)}, ${before.role})` : ''} from ${input.fileId}.${changeNote(changeId)}`,
        };
      },
    }),
  ];
}
