import { readJson, type Stack } from '@sheetgate/test-harness';

// The Google emulator's admin API (packages/google-emulator/README.md, "Admin API").

export interface SeedFile {
  name: string;
  /** A native spreadsheet's tabs, each value entered as typed. */
  sheets?: Array<{ title: string; values: Array<Array<string | number | boolean | null>> }>;
  /** A non-native file's type, with its bytes in `contentBase64`. */
  mimeType?: string;
  contentBase64?: string;
}

/** Files owned by `email`, as if they made them in Google; answers their Drive ids in order. */
export async function seedFiles(stack: Stack, email: string, files: SeedFile[]): Promise<string[]> {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, files }),
  });
  const body = await readJson(response);
  if (response.status !== 201) throw new Error(`seeding failed: ${response.status} ${JSON.stringify(body)}`);
  return body.files.map((file: { id: string }) => file.id);
}

/** The person revokes Sheetgate's access in their Google account settings. */
export async function revokeGoogleGrant(stack: Stack, email: string): Promise<void> {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  if (!response.ok) throw new Error(`revoking at the emulator failed: ${response.status}`);
}

/** How many requests each Sheets or Drive method has had so far (`GET /__emulator/stats`). */
export async function googleAttempts(stack: Stack): Promise<Record<string, number>> {
  const body = (await readJson(await fetch(`${stack.emulatorUrl}/__emulator/stats`))) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(body.methods).map(([method, { attempts }]) => [method, attempts]));
}

/** The methods that change something (all but get, list, search and export) called between two snapshots, with how often. */
export function googleWritesBetween(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .filter(
        ([method]) => !/\.(get|getByDataFilter|list|batchGet|batchGetByDataFilter|export)$/.test(method),
      )
      .map(([method, attempts]) => [method, attempts - (before[method] ?? 0)] as const)
      .filter(([, attempts]) => attempts > 0),
  );
}
