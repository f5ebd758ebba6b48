import { z } from 'zod';
import { dryRun, dryRunOutput, spreadsheetId } from './common-schemas.ts';
import { SPREADSHEET_MIME } from './google-file-types.ts';
import { defineTool, type ToolContext, ToolError } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';

/**
 * What every Drive call the tools make says (docs/design.md §11.4): the app understands shared
 * drives. Without it Google answers 404 for a file in a shared drive, as if it were not there.
 */
export const ALL_DRIVES = { supportsAllDrives: true } as const;
/** …and what every files.list says besides, so that shared drives' files are listed too. */
export const LIST_ALL_DRIVES = {
  supportsAllDrives: true,
  includeItemsFromAllDrives: true,
  corpora: 'allDrives',
} as const;

/**
 * A string literal of Drive's `q` grammar: quotes around it, and the two characters that could end
 * it early escaped (`\` as `\\`, `'` as `\'`), so that no text a model writes leaves the string.
 */
export function driveQueryString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

export const folderId = z
  .string()
  .min(5)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'a folderId has only letters, digits, - and _')
  .describe('A Drive folder id (from list_folders or the folder’s URL /folders/<id>).');

/**
 * The folder a file is to be put in, read first so that an id of something else, or of nothing,
 * is refused in words rather than as whatever Google would make of it. One files.get.
 */
export async function checkFolder(
  { drive, callGoogle }: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  { auth, signal }: Pick<ToolContext, 'auth' | 'signal'>,
  id: string,
): Promise<{ folderId: string; name: string }> {
  let folder: { id?: string | null; name?: string | null; mimeType?: string | null };
  try {
    ({ data: folder } = await callGoogle(auth.userId, signal, (request) =>
      drive.files.get({ fileId: id, fields: 'id, name, mimeType', ...ALL_DRIVES }, request),
    ));
  } catch (error) {
    if (error instanceof ToolError && error.message.startsWith('Not found:')) {
      throw new ToolError(
        `the folder ${id} does not exist, or is not in your Drive (list_folders shows yours)`,
      );
    }
    throw error;
  }
  if (folder.mimeType !== FOLDER_MIME) {
    throw new ToolError(
      `${id} ("${folder.name ?? ''}") is not a folder but a ${folder.mimeType}: give a folderId from list_folders`,
    );
  }
  return { folderId: id, name: folder.name ?? '' };
}

/**
 * Runs the Google call that puts a file into `folder`. Under drive.file Google finds only folders
 * Sheetgate made or was opened with, and answers 404 for the others: said here in words.
 */
export async function intoFolder<T>(
  folder: { folderId: string; name: string } | undefined,
  call: () => Promise<T>,
  madeAlready = '',
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (
      folder &&
      error instanceof ToolError &&
      error.message.startsWith('Not found:') &&
      error.message.includes(folder.folderId)
    ) {
      throw new ToolError(
        `${madeAlready}Sheetgate can put files only in folders it created (create_folder) or that were opened with it, and "${folder.name}" (${folder.folderId}) is not one: use create_folder, or leave folderId out and move the file in Google Drive.`,
      );
    }
    throw error;
  }
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const pageSize = z.number().int().min(1).max(100).default(50);
const pageToken = z.string().max(500).optional().describe('From a previous call, to get the next page.');

function nextPage(token: string | null | undefined): string {
  return token ? `\nMore: call again with pageToken=${JSON.stringify(token)}.` : '';
}

/** Google may search only part of every drive (corpora allDrives) and says so. */
function incomplete(data: { incompleteSearch?: boolean | null }): string {
  return data.incompleteSearch
    ? '\nGoogle searched only part of the shared drives: narrow the search (a folderId, a longer text) to be sure.'
    : '';
}

export function driveTools(deps: ToolDeps) {
  const { drive, callGoogle } = deps;
  return [
    defineTool({
      name: 'list_folders',
      title: 'List folders',
      description:
        'Lists Drive folders (yours and those of shared drives) by name, with their ids and parent: a folderId for create_spreadsheet, copy_spreadsheet, convert_file or search_spreadsheets.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        parentId: folderId
          .or(z.literal('root'))
          .optional()
          .describe('Only folders directly in this folder ("root" for the top of My Drive).'),
        nameContains: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Only folders whose name contains this.'),
        pageSize,
        pageToken,
      }),
      outputSchema: z.object({
        folders: z.array(
          z.object({
            folderId: z.string(),
            name: z.string(),
            parentId: z.string().nullable(),
            driveId: z.string().nullable(),
          }),
        ),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, { auth, signal }) {
        const clauses = [`mimeType = '${FOLDER_MIME}'`, 'trashed = false'];
        if (input.parentId) clauses.push(`${driveQueryString(input.parentId)} in parents`);
        if (input.nameContains) clauses.push(`name contains ${driveQueryString(input.nameContains)}`);
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          drive.files.list(
            {
              q: clauses.join(' and '),
              orderBy: 'name',
              pageSize: input.pageSize,
              pageToken: input.pageToken,
              fields: 'nextPageToken, incompleteSearch, files(id, name, parents, driveId)',
              ...LIST_ALL_DRIVES,
            },
            request,
          ),
        );
        const folders = (data.files ?? []).map((file) => ({
          folderId: file.id ?? '',
          name: file.name ?? '',
          parentId: file.parents?.[0] ?? null,
          driveId: file.driveId ?? null,
        }));
        const lines = folders.map(
          (folder) =>
            `${folder.name}  (folderId ${folder.folderId}${folder.parentId ? `, in ${folder.parentId}` : ''}${folder.driveId ? `, shared drive ${folder.driveId}` : ''})`,
        );
        return {
          structuredContent: { folders, nextPageToken: data.nextPageToken ?? null },
          text:
            (lines.length ? lines.join('\n') : 'No folders found.') +
            nextPage(data.nextPageToken) +
            incomplete(data),
        };
      },
    }),

    defineTool({
      name: 'search_spreadsheets',
      title: 'Search spreadsheets',
      description:
        'Finds spreadsheets (in your Drive and shared drives) whose name or contents contain a text, newest first; optionally only in one folder.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        query: z.string().trim().min(1).max(200).describe('The text to look for.'),
        match: z
          .enum(['any', 'name', 'content'])
          .default('any')
          .describe(
            'name: the name has a word starting with the text; content: the cells or the name hold it; any: either.',
          ),
        folderId: folderId.optional().describe('Only spreadsheets directly in this folder.'),
        pageSize,
        pageToken,
      }),
      outputSchema: z.object({
        spreadsheets: z.array(
          z.object({
            spreadsheetId: z.string(),
            name: z.string(),
            modifiedTime: z.string().nullable(),
            driveId: z.string().nullable(),
          }),
        ),
        nextPageToken: z.string().nullable(),
      }),
      async run(input, { auth, signal }) {
        const text = driveQueryString(input.query);
        const byName = `name contains ${text}`;
        const byContent = `fullText contains ${text}`;
        const clauses = [
          `mimeType = '${SPREADSHEET_MIME}'`,
          'trashed = false',
          input.match === 'name'
            ? byName
            : input.match === 'content'
              ? byContent
              : `(${byName} or ${byContent})`,
        ];
        if (input.folderId) clauses.push(`${driveQueryString(input.folderId)} in parents`);
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          drive.files.list(
            {
              q: clauses.join(' and '),
              orderBy: 'modifiedTime desc',
              pageSize: input.pageSize,
              pageToken: input.pageToken,
              fields: 'nextPageToken, incompleteSearch, files(id, name, modifiedTime, driveId)',
              ...LIST_ALL_DRIVES,
            },
            request,
          ),
        );
        const spreadsheets = (data.files ?? []).map((file) => ({
          spreadsheetId: file.id ?? '',
          name: file.name ?? '',
          modifiedTime: file.modifiedTime ?? null,
          driveId: file.driveId ?? null,
        }));
        const lines = spreadsheets.map((file) => `${file.name}  (spreadsheetId ${file.spreadsheetId})`);
        return {
          structuredContent: { spreadsheets, nextPageToken: data.nextPageToken ?? null },
          text:
            (lines.length ? lines.join('\n') : `No spreadsheets match ${JSON.stringify(input.query)}.`) +
            nextPage(data.nextPageToken) +
            incomplete(data),
        };
      },
    }),

    defineTool({
      name: 'copy_spreadsheet',
      title: 'Copy a spreadsheet',
      description:
        'Makes a copy of a spreadsheet (tabs, values, formulas and formats), optionally named and put in a folder. An xlsx, csv or ods file is copied as a Google spreadsheet.',
      scope: 'sheets:write',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      inputSchema: z.object({
        spreadsheetId,
        name: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .optional()
          .describe('The copy’s name; "Copy of <name>" by default.'),
        folderId: folderId
          .optional()
          .describe('The folder to put the copy in; beside the original by default.'),
        dryRun,
      }),
      outputSchema: z.object({
        // null in a dry run: Google assigns the id.
        spreadsheetId: z.string().nullable(),
        name: z.string(),
        url: z.string().nullable(),
        folderId: z.string().nullable(),
        dryRun: dryRunOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const folder = input.folderId ? await checkFolder(deps, context, input.folderId) : undefined;
        const where = folder ? ` in the folder "${folder.name}"` : '';
        if (input.dryRun) {
          const { data: source } = await callGoogle(auth.userId, signal, (request) =>
            drive.files.get(
              { fileId: input.spreadsheetId, fields: 'id, name, mimeType', ...ALL_DRIVES },
              request,
            ),
          );
          const name = input.name ?? `Copy of ${source.name ?? ''}`;
          return {
            structuredContent: {
              spreadsheetId: null,
              name,
              url: null,
              folderId: folder?.folderId ?? null,
              dryRun: true,
            },
            text: `Dry run: would copy ${source.name} as ${name}${where}. Nothing was changed.`,
          };
        }
        let copy: {
          id?: string | null;
          name?: string | null;
          webViewLink?: string | null;
          parents?: string[] | null;
        };
        try {
          ({ data: copy } = await intoFolder(folder, () =>
            callGoogle(auth.userId, signal, (request) =>
              drive.files.copy(
                {
                  fileId: input.spreadsheetId,
                  fields: 'id, name, webViewLink, parents',
                  requestBody: {
                    // The copy is a spreadsheet whatever the source: Google converts xlsx, csv and ods.
                    mimeType: SPREADSHEET_MIME,
                    ...(input.name ? { name: input.name } : {}),
                    ...(folder ? { parents: [folder.folderId] } : {}),
                  },
                  ...ALL_DRIVES,
                },
                request,
              ),
            ),
          ));
        } catch (error) {
          if (error instanceof ToolError && /conversion is not supported/i.test(error.message)) {
            throw new ToolError(
              `${input.spreadsheetId} is neither a spreadsheet nor an xlsx, csv or ods file, so it cannot be copied as a spreadsheet`,
            );
          }
          throw error;
        }
        if (!copy.id) throw new ToolError('Google did not return the copy’s id');
        const result = {
          spreadsheetId: copy.id,
          name: copy.name ?? '',
          url: copy.webViewLink ?? null,
          folderId: folder?.folderId ?? copy.parents?.[0] ?? null,
        };
        return {
          structuredContent: result,
          text: `Copied as ${result.name} (spreadsheetId ${result.spreadsheetId})${where}${result.url ? `: ${result.url}` : ''}.`,
        };
      },
    }),

    defineTool({
      name: 'create_folder',
      title: 'Create a folder',
      description:
        'Creates a Drive folder, optionally inside another: Sheetgate can put files only in folders it created, so make one here for create_spreadsheet, copy_spreadsheet and convert_file.',
      scope: 'sheets:write',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      inputSchema: z.object({
        name: z.string().trim().min(1).max(200),
        parentId: folderId.optional().describe('The folder to create it in; the top of My Drive by default.'),
        dryRun,
      }),
      outputSchema: z.object({
        // null in a dry run: Google assigns the id.
        folderId: z.string().nullable(),
        name: z.string(),
        parentId: z.string().nullable(),
        dryRun: dryRunOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const parent = input.parentId ? await checkFolder(deps, context, input.parentId) : undefined;
        const where = parent ? ` in the folder "${parent.name}"` : ' at the top of My Drive';
        if (input.dryRun) {
          return {
            structuredContent: {
              folderId: null,
              name: input.name,
              parentId: parent?.folderId ?? null,
              dryRun: true,
            },
            text: `Dry run: would create the folder ${input.name}${where}. Nothing was changed.`,
          };
        }
        const { data } = await intoFolder(parent, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.files.create(
              {
                fields: 'id, name, parents',
                requestBody: {
                  name: input.name,
                  mimeType: FOLDER_MIME,
                  ...(parent ? { parents: [parent.folderId] } : {}),
                },
                ...ALL_DRIVES,
              },
              request,
            ),
          ),
        );
        if (!data.id) throw new ToolError('Google did not return the new folder’s id');
        const result = {
          folderId: data.id,
          name: data.name ?? input.name,
          parentId: data.parents?.[0] ?? null,
        };
        return {
          structuredContent: result,
          text: `Created the folder ${result.name}${where} (folderId ${result.folderId}).`,
        };
      },
    }),
  ];
}

const anyFileId = z
  .string()
  .min(5)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'a fileId has only letters, digits, - and _')
  .describe('The file’s id: a spreadsheetId, or any Drive file id.');
const permissionId = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, 'a permissionId has only letters, digits, - and _')
  .describe('The permission’s id, from list_permissions or share_file.');
const shareRole = z
  .enum(['reader', 'commenter', 'writer'])
  .describe('reader sees, commenter also comments, writer also edits and may share.');

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

/** Who a permission is for, as a person would say it. */
function grantee(permission: { type: string; emailAddress: string | null; domain: string | null }): string {
  if (permission.type === 'anyone') return 'anyone with the link';
  if (permission.type === 'domain') return `everyone at ${permission.domain}`;
  return `${permission.emailAddress ?? 'an unnamed grantee'}${permission.type === 'group' ? ' (group)' : ''}`;
}

/**
 * Runs a change of a file's sharing. Under drive.file Google lets Sheetgate change the sharing
 * only of files it created or that were opened with it, and answers 404 (or 403) for the others:
 * said here with what to do instead.
 */
async function sharingChange<T>(fileId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (
      error instanceof ToolError &&
      ((error.message.startsWith('Not found:') && error.message.includes(`File not found: ${fileId}`)) ||
        error.message.startsWith('Google refused access to this file'))
    ) {
      throw new ToolError(
        `Not found among the files Sheetgate may change: Sheetgate can change the sharing only of files it created or that were opened with it, and ${fileId} is not one (or is not in your Drive). Share it in Google Drive instead, or copy it with copy_spreadsheet — the copy is Sheetgate's — and share the copy.`,
      );
    }
    throw error;
  }
}

/** share_file, list_permissions, update_permission and remove_permission (Drive permissions). */
export function sharingTools(deps: ToolDeps) {
  const { drive, callGoogle } = deps;
  const CHANGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };
  return [
    defineTool({
      name: 'share_file',
      title: 'Share a file',
      description:
        'Shares a spreadsheet or file Sheetgate created (or that was opened with it) with a person or group (by email), a whole domain, or anyone with the link, as reader, commenter or writer.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        fileId: anyFileId,
        type: z.enum(['user', 'group', 'domain', 'anyone']).default('user'),
        role: shareRole,
        emailAddress: z
          .email()
          .max(320)
          .optional()
          .describe('The person’s or group’s email (type user or group).'),
        domain: z
          .string()
          .max(253)
          .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'a domain such as example.com')
          .optional()
          .describe('The domain (type domain), e.g. example.com.'),
        sendNotificationEmail: z
          .boolean()
          .optional()
          .describe('Email the person or group about it (default true; user and group only).'),
        emailMessage: z.string().max(2_000).optional().describe('A message for the notification email.'),
        dryRun,
      }),
      outputSchema: permissionOutput.extend({
        permissionId: z.string().nullable(),
        fileName: z.string().nullable(),
        dryRun: dryRunOutput,
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
            text: `Dry run: would share ${file.name} with ${grantee(planned)} as ${input.role}. Nothing was changed.`,
          };
        }
        const { data } = await sharingChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.permissions.create(
              {
                fileId: input.fileId,
                fields: PERMISSION_FIELDS,
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
        return {
          structuredContent: { ...permission, fileName: null },
          text: `Shared ${input.fileId} with ${grantee(permission)} as ${permission.role} (permissionId ${permission.permissionId}).`,
        };
      },
    }),

    defineTool({
      name: 'list_permissions',
      title: 'List who a file is shared with',
      description:
        'Lists a file’s permissions: who has access (owner, people, groups, domains, anyone) and their role.',
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
            `${grantee(permission)}: ${permission.role}  (permissionId ${permission.permissionId})`,
        );
        return {
          structuredContent: { permissions, nextPageToken: data.nextPageToken ?? null },
          text: (lines.length ? lines.join('\n') : 'No permissions.') + nextPage(data.nextPageToken),
        };
      },
    }),

    defineTool({
      name: 'update_permission',
      title: 'Change a sharing role',
      description:
        'Changes the role (reader, commenter, writer) of one permission of a file Sheetgate created or that was opened with it.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({ fileId: anyFileId, permissionId, role: shareRole, dryRun }),
      outputSchema: permissionOutput.extend({ previousRole: z.string().nullable(), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        if (input.dryRun) {
          const { data } = await callGoogle(auth.userId, signal, (request) =>
            drive.permissions.get(
              {
                fileId: input.fileId,
                permissionId: input.permissionId,
                fields: PERMISSION_FIELDS,
                ...ALL_DRIVES,
              },
              request,
            ),
          );
          const current = permissionOf(data);
          return {
            structuredContent: { ...current, role: input.role, previousRole: current.role, dryRun: true },
            text: `Dry run: would change ${grantee(current)} from ${current.role} to ${input.role}. Nothing was changed.`,
          };
        }
        const { data } = await sharingChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.permissions.update(
              {
                fileId: input.fileId,
                permissionId: input.permissionId,
                fields: PERMISSION_FIELDS,
                requestBody: { role: input.role },
                ...ALL_DRIVES,
              },
              request,
            ),
          ),
        );
        const permission = permissionOf(data);
        return {
          structuredContent: { ...permission, previousRole: null },
          text: `${grantee(permission)} is now ${permission.role} of ${input.fileId}.`,
        };
      },
    }),

    defineTool({
      name: 'remove_permission',
      title: 'Stop sharing with someone',
      description:
        'Removes one permission (a person, group, domain or link) from a file Sheetgate created or that was opened with it. The owner’s cannot be removed.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ fileId: anyFileId, permissionId, dryRun }),
      outputSchema: z.object({
        fileId: z.string(),
        permissionId: z.string(),
        removed: z.boolean(),
        dryRun: dryRunOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.dryRun) {
          const { data } = await callGoogle(auth.userId, signal, (request) =>
            drive.permissions.get(
              {
                fileId: input.fileId,
                permissionId: input.permissionId,
                fields: PERMISSION_FIELDS,
                ...ALL_DRIVES,
              },
              request,
            ),
          );
          const current = permissionOf(data);
          return {
            structuredContent: {
              fileId: input.fileId,
              permissionId: input.permissionId,
              removed: false,
              dryRun: true,
            },
            text: `Dry run: would remove ${grantee(current)}'s ${current.role} access. Nothing was changed.`,
          };
        }
        await sharingChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.permissions.delete(
              { fileId: input.fileId, permissionId: input.permissionId, ...ALL_DRIVES },
              request,
            ),
          ),
        );
        return {
          structuredContent: { fileId: input.fileId, permissionId: input.permissionId, removed: true },
          text: `Removed permission ${input.permissionId} from ${input.fileId}.`,
        };
      },
    }),
  ];
}

const commentId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'a commentId has only letters, digits, - and _')
  .describe('The comment’s id, from list_comments or add_comment.');
const commentText = z.string().trim().min(1).max(4_000);

/** Under drive.file Google lets Sheetgate comment only on files it created or was opened with. */
async function commentChange<T>(fileId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (
      error instanceof ToolError &&
      ((error.message.startsWith('Not found:') && error.message.includes(`File not found: ${fileId}`)) ||
        error.message.startsWith('Google refused access to this file'))
    ) {
      throw new ToolError(
        `Not found among the files Sheetgate may change: Sheetgate can comment only on files it created or that were opened with it, and ${fileId} is not one (or is not in your Drive). Comment in Google Sheets instead, or work on a copy (copy_spreadsheet).`,
      );
    }
    throw error;
  }
}

const replyOutput = z.object({
  replyId: z.string(),
  author: z.string().nullable(),
  content: z.string(),
  action: z.string().nullable(),
  createdTime: z.string().nullable(),
});
const commentOutput = z.object({
  commentId: z.string(),
  author: z.string().nullable(),
  content: z.string(),
  quotedText: z.string().nullable(),
  resolved: z.boolean(),
  createdTime: z.string().nullable(),
  replies: z.array(replyOutput),
});
const COMMENT_FIELDS =
  'id, content, createdTime, resolved, author(displayName), quotedFileContent(value), replies(id, content, action, createdTime, author(displayName))';

/** list_comments, add_comment, reply_to_comment and resolve_comment (Drive comments and replies). */
export function commentTools(deps: ToolDeps) {
  const { drive, callGoogle } = deps;
  const CHANGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  const checkComment = async (context: Pick<ToolContext, 'auth' | 'signal'>, fileId: string, id: string) => {
    const { data } = await callGoogle(context.auth.userId, context.signal, (request) =>
      drive.comments.get({ fileId, commentId: id, fields: 'id, content, resolved' }, request),
    );
    return data;
  };
  return [
    defineTool({
      name: 'list_comments',
      title: 'List comments',
      description: 'Lists a spreadsheet’s (or file’s) comments with their replies, oldest first, paged.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        fileId: anyFileId,
        includeResolved: z.boolean().default(true).describe('Also the resolved comments.'),
        pageSize: z.number().int().min(1).max(100).default(20),
        pageToken,
      }),
      outputSchema: z.object({ comments: z.array(commentOutput), nextPageToken: z.string().nullable() }),
      async run(input, { auth, signal }) {
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          drive.comments.list(
            {
              fileId: input.fileId,
              pageSize: input.pageSize,
              pageToken: input.pageToken,
              fields: `nextPageToken, comments(${COMMENT_FIELDS})`,
            },
            request,
          ),
        );
        const comments = (data.comments ?? [])
          .filter((comment) => input.includeResolved || !comment.resolved)
          .map((comment) => ({
            commentId: comment.id ?? '',
            author: comment.author?.displayName ?? null,
            content: comment.content ?? '',
            quotedText: comment.quotedFileContent?.value ?? null,
            resolved: comment.resolved ?? false,
            createdTime: comment.createdTime ?? null,
            replies: (comment.replies ?? []).map((reply) => ({
              replyId: reply.id ?? '',
              author: reply.author?.displayName ?? null,
              content: reply.content ?? '',
              action: reply.action ?? null,
              createdTime: reply.createdTime ?? null,
            })),
          }));
        const lines = comments.flatMap((comment) => [
          `${comment.author ?? 'someone'}${comment.resolved ? ' (resolved)' : ''}: ${comment.content}  (commentId ${comment.commentId})`,
          ...comment.replies.map(
            (reply) =>
              `  ↳ ${reply.author ?? 'someone'}: ${reply.action ? `[${reply.action}] ` : ''}${reply.content}`,
          ),
        ]);
        return {
          structuredContent: { comments, nextPageToken: data.nextPageToken ?? null },
          text: (lines.length ? lines.join('\n') : 'No comments.') + nextPage(data.nextPageToken),
        };
      },
    }),

    defineTool({
      name: 'add_comment',
      title: 'Add a comment',
      description:
        'Adds a comment to a spreadsheet or file Sheetgate created (or that was opened with it), optionally quoting the text it is about.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        fileId: anyFileId,
        content: commentText.describe('The comment.'),
        quotedText: z
          .string()
          .max(1_000)
          .optional()
          .describe('The text the comment is about, shown with it.'),
        dryRun,
      }),
      outputSchema: z.object({ commentId: z.string().nullable(), content: z.string(), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        if (input.dryRun) {
          const { data: file } = await callGoogle(auth.userId, signal, (request) =>
            drive.files.get({ fileId: input.fileId, fields: 'id, name', ...ALL_DRIVES }, request),
          );
          return {
            structuredContent: { commentId: null, content: input.content, dryRun: true },
            text: `Dry run: would comment on ${file.name}: ${input.content}. Nothing was changed.`,
          };
        }
        const { data } = await commentChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.comments.create(
              {
                fileId: input.fileId,
                fields: 'id, content',
                requestBody: {
                  content: input.content,
                  ...(input.quotedText
                    ? { quotedFileContent: { mimeType: 'text/plain', value: input.quotedText } }
                    : {}),
                },
              },
              request,
            ),
          ),
        );
        if (!data.id) throw new ToolError('Google did not return the comment’s id');
        return {
          structuredContent: { commentId: data.id, content: data.content ?? input.content },
          text: `Commented on ${input.fileId} (commentId ${data.id}).`,
        };
      },
    }),

    defineTool({
      name: 'reply_to_comment',
      title: 'Reply to a comment',
      description: 'Replies to a comment, optionally resolving it with the reply.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        fileId: anyFileId,
        commentId,
        content: commentText.describe('The reply.'),
        resolve: z.boolean().default(false).describe('Also mark the comment resolved.'),
        dryRun,
      }),
      outputSchema: z.object({
        replyId: z.string().nullable(),
        resolved: z.boolean(),
        dryRun: dryRunOutput,
      }),
      async run(input, context) {
        const { auth, signal } = context;
        if (input.dryRun) {
          const comment = await checkComment(context, input.fileId, input.commentId);
          return {
            structuredContent: {
              replyId: null,
              resolved: input.resolve || (comment.resolved ?? false),
              dryRun: true,
            },
            text: `Dry run: would reply to "${comment.content}"${input.resolve ? ' and resolve it' : ''}. Nothing was changed.`,
          };
        }
        const { data } = await commentChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.replies.create(
              {
                fileId: input.fileId,
                commentId: input.commentId,
                fields: 'id',
                requestBody: { content: input.content, ...(input.resolve ? { action: 'resolve' } : {}) },
              },
              request,
            ),
          ),
        );
        if (!data.id) throw new ToolError('Google did not return the reply’s id');
        return {
          structuredContent: { replyId: data.id, resolved: input.resolve },
          text: `Replied to ${input.commentId}${input.resolve ? ' and resolved it' : ''} (replyId ${data.id}).`,
        };
      },
    }),

    defineTool({
      name: 'resolve_comment',
      title: 'Resolve or reopen a comment',
      description: 'Marks a comment resolved (or reopens it), as a reply with an optional note.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        fileId: anyFileId,
        commentId,
        reopen: z.boolean().default(false).describe('Reopen a resolved comment instead.'),
        content: commentText.optional().describe('A note with it.'),
        dryRun,
      }),
      outputSchema: z.object({ commentId: z.string(), resolved: z.boolean(), dryRun: dryRunOutput }),
      async run(input, context) {
        const { auth, signal } = context;
        const resolved = !input.reopen;
        if (input.dryRun) {
          const comment = await checkComment(context, input.fileId, input.commentId);
          return {
            structuredContent: { commentId: input.commentId, resolved, dryRun: true },
            text: `Dry run: would ${input.reopen ? 'reopen' : 'resolve'} "${comment.content}". Nothing was changed.`,
          };
        }
        await commentChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.replies.create(
              {
                fileId: input.fileId,
                commentId: input.commentId,
                fields: 'id',
                requestBody: {
                  action: input.reopen ? 'reopen' : 'resolve',
                  ...(input.content ? { content: input.content } : {}),
                },
              },
              request,
            ),
          ),
        );
        return {
          structuredContent: { commentId: input.commentId, resolved },
          text: `${input.reopen ? 'Reopened' : 'Resolved'} ${input.commentId}.`,
        };
      },
    }),
  ];
}
