import {
  type AcquireGoogleQuotaRequest,
  type AcquireGoogleQuotaResponse,
  fromGoogleQuotaBucket,
  type GoogleQuotaServiceServer,
  type ReportGoogleQuotaExhaustedRequest,
  type ReportGoogleQuotaExhaustedResponse,
  toGoogleQuotaLimit,
} from '@sheetgate/proto';
import { type Logger, SheetgateError } from '@sheetgate/service-runtime';
import type { GoogleQuotaScheduler, QuotaBucket, QuotaTurn } from '../google-quota/index.ts';
import { unaryHandler } from './unary-handler.ts';

/** User ids are UUIDs; anything longer than this is not one and never becomes a store key. */
const MAX_USER_ID_LENGTH = 64;
/** The longest Retry-After taken from Google (an hour): a hold is never longer. */
const MAX_RETRY_AFTER_SECONDS = 3_600;

function checked(request: { userId: string; bucket: AcquireGoogleQuotaRequest['bucket'] }): {
  userId: string;
  bucket: QuotaBucket;
} {
  if (!request.userId || request.userId.length > MAX_USER_ID_LENGTH)
    throw new SheetgateError('invalid_argument', 'user_id must be a user id');
  const bucket = fromGoogleQuotaBucket(request.bucket);
  if (!bucket) throw new SheetgateError('invalid_argument', 'bucket must be a Google quota bucket');
  return { userId: request.userId, bucket };
}

/** gRPC GoogleQuotaService: turns at Google's quota, answered by the scheduler. */
export function googleQuotaHandlers(deps: {
  logger: Logger;
  scheduler: GoogleQuotaScheduler;
  onTurn?: (bucket: QuotaBucket, turn: QuotaTurn) => void;
}): Partial<GoogleQuotaServiceServer> {
  const { logger, scheduler } = deps;
  return {
    acquireGoogleQuota: unaryHandler<AcquireGoogleQuotaRequest, AcquireGoogleQuotaResponse>(
      logger,
      'AcquireGoogleQuota',
      async (request) => {
        const { userId, bucket } = checked(request);
        const turn = await scheduler.acquire(userId, bucket);
        deps.onTurn?.(bucket, turn);
        return turn.granted
          ? { granted: true, retryAfterMs: 0, limitedBy: 'GOOGLE_QUOTA_LIMIT_UNSPECIFIED' }
          : {
              granted: false,
              retryAfterMs: Math.min(Math.max(1, Math.ceil(turn.retryAfterMs)), 2 ** 31 - 1),
              limitedBy: toGoogleQuotaLimit(turn.limitedBy),
            };
      },
    ),
    reportGoogleQuotaExhausted: unaryHandler<
      ReportGoogleQuotaExhaustedRequest,
      ReportGoogleQuotaExhaustedResponse
    >(logger, 'ReportGoogleQuotaExhausted', async (request) => {
      const { userId, bucket } = checked(request);
      if (!(request.retryAfterSeconds >= 0 && request.retryAfterSeconds <= MAX_RETRY_AFTER_SECONDS))
        throw new SheetgateError(
          'invalid_argument',
          `retry_after_seconds must be 0..${MAX_RETRY_AFTER_SECONDS}`,
        );
      await scheduler.exhausted(userId, bucket, request.perUser, request.retryAfterSeconds || undefined);
      return {};
    }),
  };
}
