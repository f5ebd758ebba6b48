import { ToolError } from '../../errors/tool-error.ts';

/**
 * Runs a change Google allows under drive.file only on files Sheetgate created or was opened with
 * (sharing, comments). For any other file Google answers 404 ("File not found: <id>") or 403: that
 * answer is replaced by `refusal`, which says what to do instead.
 */
export async function changeOfSheetgatesFile<T>(
  fileId: string,
  refusal: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (
      error instanceof ToolError &&
      ((error.message.startsWith('Not found:') && error.message.includes(`File not found: ${fileId}`)) ||
        error.message.startsWith('Google refused access to this file'))
    ) {
      throw new ToolError(refusal);
    }
    throw error;
  }
}
