import { GoogleQuotaBucket, GoogleQuotaLimit } from '../gen/sheetgate/v1/google_quota.ts';

/** The quotas Google counts apart, by the names Sheetgate's code and metrics use. */
export const GOOGLE_QUOTA_BUCKET_NAMES = ['sheets_read', 'sheets_write', 'drive'] as const;
export type GoogleQuotaBucketName = (typeof GOOGLE_QUOTA_BUCKET_NAMES)[number];

/** What held a request back, by name (a granted turn names none). */
export type GoogleQuotaLimitName = 'person' | 'project' | 'fair_share' | 'google';

const BUCKET_ON_WIRE: Record<GoogleQuotaBucketName, GoogleQuotaBucket> = {
  sheets_read: GoogleQuotaBucket.GOOGLE_QUOTA_BUCKET_SHEETS_READ,
  sheets_write: GoogleQuotaBucket.GOOGLE_QUOTA_BUCKET_SHEETS_WRITE,
  drive: GoogleQuotaBucket.GOOGLE_QUOTA_BUCKET_DRIVE,
};
const LIMIT_ON_WIRE: Record<GoogleQuotaLimitName, GoogleQuotaLimit> = {
  person: GoogleQuotaLimit.GOOGLE_QUOTA_LIMIT_PERSON,
  project: GoogleQuotaLimit.GOOGLE_QUOTA_LIMIT_PROJECT,
  fair_share: GoogleQuotaLimit.GOOGLE_QUOTA_LIMIT_FAIR_SHARE,
  google: GoogleQuotaLimit.GOOGLE_QUOTA_LIMIT_GOOGLE,
};
const inverse = <Name extends string, Wire extends string>(table: Record<Name, Wire>) =>
  new Map(Object.entries(table).map(([name, wire]) => [wire as Wire, name as Name]));
const BUCKET_NAMES = inverse(BUCKET_ON_WIRE);
const LIMIT_NAMES = inverse(LIMIT_ON_WIRE);

export const toGoogleQuotaBucket = (name: GoogleQuotaBucketName): GoogleQuotaBucket => BUCKET_ON_WIRE[name];
/** The bucket's name, or undefined for UNSPECIFIED and values this build does not know. */
export const fromGoogleQuotaBucket = (wire: GoogleQuotaBucket): GoogleQuotaBucketName | undefined =>
  BUCKET_NAMES.get(wire);
export const toGoogleQuotaLimit = (name: GoogleQuotaLimitName): GoogleQuotaLimit => LIMIT_ON_WIRE[name];
/** The limit's name; `project` for UNSPECIFIED and values this build does not know. */
export const fromGoogleQuotaLimit = (wire: GoogleQuotaLimit): GoogleQuotaLimitName =>
  LIMIT_NAMES.get(wire) ?? 'project';
