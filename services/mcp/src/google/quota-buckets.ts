import type { GoogleQuotaBucketName } from '@sheetgate/proto';

/**
 * Which of Google's per-minute quotas a request spends, from its URL: Sheets reads (GET, and the
 * `…ByDataFilter` reads Google counts as reads), Sheets writes (every other Sheets request), or
 * Drive (uploads included). Undefined for anything else (nothing Sheetgate calls).
 */
export function quotaBucketOf(httpMethod: string, url: string | URL): GoogleQuotaBucketName | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  if (path.startsWith('/v4/spreadsheets')) {
    return httpMethod.toUpperCase() === 'GET' || /ByDataFilter$/.test(path) ? 'sheets_read' : 'sheets_write';
  }
  if (path.startsWith('/drive/') || path.startsWith('/upload/drive/')) return 'drive';
  return undefined;
}
