import { GOOGLE_QUOTA_BUCKET_NAMES, type GoogleQuotaBucketName } from '@sheetgate/proto';

/** The quotas Google counts apart: Sheets reads, Sheets writes, Drive requests. */
export const QUOTA_BUCKETS = GOOGLE_QUOTA_BUCKET_NAMES;
export type QuotaBucket = GoogleQuotaBucketName;

/** One bucket's per-minute quotas: the project's (every person Sheetgate serves) and each person's. */
export interface BucketQuota {
  perProject: number;
  perUser: number;
}

export type GoogleQuotas = Record<QuotaBucket, BucketQuota>;

/**
 * Google's documented defaults for a project: Sheets API 300 read and 300 write requests per
 * minute per project, 60 of each per minute per user per project
 * (developers.google.com/workspace/sheets/api/limits); Drive API 12,000 queries per minute per
 * project and per user (developers.google.com/workspace/drive/api/guides/limits). An operator
 * whose project was granted more sets GOOGLE_QUOTAS.
 */
export const GOOGLE_DEFAULT_QUOTAS: GoogleQuotas = {
  sheets_read: { perProject: 300, perUser: 60 },
  sheets_write: { perProject: 300, perUser: 60 },
  drive: { perProject: 12_000, perUser: 12_000 },
};

/** GOOGLE_QUOTAS' names, as the emulator's `POST /__emulator/quotas` spells its own. */
export const QUOTA_SETTING_NAMES = {
  sheetsReadsPerMinutePerProject: ['sheets_read', 'perProject'],
  sheetsReadsPerMinutePerUser: ['sheets_read', 'perUser'],
  sheetsWritesPerMinutePerProject: ['sheets_write', 'perProject'],
  sheetsWritesPerMinutePerUser: ['sheets_write', 'perUser'],
  driveRequestsPerMinutePerProject: ['drive', 'perProject'],
  driveRequestsPerMinutePerUser: ['drive', 'perUser'],
} as const satisfies Record<string, readonly [QuotaBucket, keyof BucketQuota]>;

export type QuotaSettingName = keyof typeof QUOTA_SETTING_NAMES;

/** Google's defaults with the operator's overrides applied. */
export function googleQuotas(overrides: Partial<Record<QuotaSettingName, number>> = {}): GoogleQuotas {
  const quotas = structuredClone(GOOGLE_DEFAULT_QUOTAS);
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const [bucket, field] = QUOTA_SETTING_NAMES[name as QuotaSettingName];
    quotas[bucket][field] = value;
  }
  return quotas;
}

/**
 * How long a request counts against a minute: Google's minute and one second more, for the time
 * a request granted here takes to reach Google — so Google's own rolling minute never holds more
 * than the quota however the requests' travel times differ.
 */
export const QUOTA_WINDOW_MS = 61_000;

/** How long a bucket Google answered 429 for stays closed when Google sent no Retry-After. */
export const GOOGLE_HOLD_WITHOUT_RETRY_AFTER_MS = 5_000;

/**
 * The longest a person waiting for the project's minute is told to wait before asking again, so
 * their place as a waiter (which holds back people past their share) lasts only while they ask.
 */
export const MAX_PROJECT_WAIT_HINT_MS = 1_000;

/** How often someone past their fair share asks again while others wait for theirs. */
export function fairSharePollMs(quota: BucketQuota, windowMs = QUOTA_WINDOW_MS): number {
  return Math.max(50, Math.ceil(windowMs / quota.perProject));
}

/**
 * The last part of the project's minute (a tenth, at least one request), kept for people below the
 * share they would have if one more person came: a person alone may use nearly the whole minute,
 * yet someone who arrives after a flood took it still finds room at once instead of waiting for
 * the flood's minute to pass.
 */
export function newcomersReserve(quota: BucketQuota): number {
  return Math.max(1, Math.ceil(quota.perProject / 10));
}

/** The most turns one AcquireGoogleQuota may take (and one ReturnGoogleQuota give back). */
export const MAX_LEASE_TURNS = 20;

/** How long the turns of a lease beyond the first may be spent before they are given back. */
export const LEASE_VALID_MS = 1_000;

/**
 * Whether `requested` turns may go at once: while the person and the project would still use at
 * most half their minute (the project's less its reserve) and nobody waits, a replica may keep a
 * few turns for the person's next requests and skip asking for each; near the limits every turn
 * is asked for, so leases never cost anyone fairness.
 */
export function mayLease(
  quota: BucketQuota,
  requested: number,
  own: number,
  project: number,
  anyoneWaiting: boolean,
): boolean {
  return (
    requested > 1 &&
    !anyoneWaiting &&
    own + requested <= Math.floor(quota.perUser / 2) &&
    project + requested <= Math.floor((quota.perProject - newcomersReserve(quota)) / 2)
  );
}
