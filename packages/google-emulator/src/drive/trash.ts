import type { DriveFile } from '../contracts.ts';
import type { MemoryFileStore } from './file-store.ts';

/**
 * Moves a file to the trash or out of it as Drive does: `trashed` is "whether the file has been
 * trashed, either explicitly or from a trashed parent folder", `explicitlyTrashed` "as opposed to
 * recursively trashed from a parent folder"
 * (https://developers.google.com/workspace/drive/api/reference/rest/v3/files). So trashing a folder
 * trashes what it holds, at any depth, and taking the folder out of the trash takes out what went
 * with it, not what was trashed on its own before. Only files of the folder's owner go with it
 * (Drive's "all descendants owned by the user"), or all of them in a shared drive.
 */
export function setTrashed(files: MemoryFileStore, file: DriveFile, trashed: boolean): void {
  if (file.trashed === trashed && (file.explicitlyTrashed ?? file.trashed) === trashed) return;
  file.trashed = trashed;
  file.explicitlyTrashed = trashed;
  const goes = (held: DriveFile) =>
    held.ownerEmail === file.ownerEmail || (file.driveId !== undefined && held.driveId === file.driveId);
  const seen = new Set([file.id]);
  let folders = [file.id];
  while (folders.length > 0) {
    const held = files.all().filter((each) => each.parents.some((parent) => folders.includes(parent)));
    folders = [];
    for (const each of held) {
      if (seen.has(each.id) || !goes(each)) continue;
      seen.add(each.id);
      // What was trashed on its own stays as it is, and so does what it holds.
      if (each.explicitlyTrashed ?? each.trashed) continue;
      folders.push(each.id);
      each.trashed = trashed;
      each.explicitlyTrashed = false;
    }
  }
}
