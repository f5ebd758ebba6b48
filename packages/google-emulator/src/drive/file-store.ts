import { randomBytes } from 'node:crypto';
import { type DriveFile, type FileStore, SPREADSHEET_MIME_TYPE } from '../contracts.ts';

/**
 * Every account's Drive, in memory, shared by the Drive and Sheets APIs. Ids look like Google's:
 * 44 URL-safe characters for native spreadsheets, 33 for other files.
 */
export class MemoryFileStore implements FileStore {
  readonly #files = new Map<string, DriveFile>();
  #lastModified = 0;

  get(id: string): DriveFile | undefined {
    return this.#files.get(id);
  }

  create(
    file: Pick<DriveFile, 'name' | 'mimeType' | 'ownerEmail'> &
      Partial<Pick<DriveFile, 'parents' | 'content' | 'id' | 'driveId'>>,
    clientId: string,
  ): DriveFile {
    const now = this.#now();
    // A file made in a shared drive's folder is in that shared drive.
    const driveId =
      file.driveId ?? file.parents?.map((id) => this.#files.get(id)?.driveId).find((id) => id !== undefined);
    const created: DriveFile = {
      id: file.id ?? newFileId(file.mimeType),
      name: file.name,
      mimeType: file.mimeType,
      ownerEmail: file.ownerEmail.toLowerCase(),
      createdTime: now,
      modifiedTime: now,
      trashed: false,
      parents: file.parents ?? [],
      appClientIds: new Set(clientId ? [clientId] : []),
      ...(file.content ? { content: file.content } : {}),
      ...(driveId ? { driveId } : {}),
    };
    this.#files.set(created.id, created);
    return created;
  }

  touch(id: string): void {
    const file = this.#files.get(id);
    if (file) file.modifiedTime = this.#now();
  }

  delete(id: string): void {
    this.#files.delete(id);
  }

  listByOwner(ownerEmail: string): DriveFile[] {
    const owner = ownerEmail.toLowerCase();
    return [...this.#files.values()].filter((file) => file.ownerEmail === owner);
  }

  all(): DriveFile[] {
    return [...this.#files.values()];
  }

  clear(): void {
    this.#files.clear();
  }

  /** Strictly increasing timestamps, so that `orderBy=modifiedTime` is deterministic in fast tests. */
  #now(): string {
    const now = Math.max(Date.now(), this.#lastModified + 1);
    this.#lastModified = now;
    return new Date(now).toISOString();
  }
}

export function newFileId(mimeType: string): string {
  const length = mimeType === SPREADSHEET_MIME_TYPE ? 44 : 33;
  return `1${randomBytes(length)
    .toString('base64url')
    .slice(0, length - 1)}`;
}
