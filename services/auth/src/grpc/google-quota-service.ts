import {
  type AcquireGoogleQuotaRequest,
  type AcquireGoogleQuotaResponse,
  fromGoogleQuotaBucket,
  type GoogleQuotaServiceServer,
  type ReportGoogleQuotaExhaustedRequest,
  type ReportGoogleQuotaExhaustedResponse,
  type ReturnGoogleQuotaRequest,
  type ReturnGoogleQuotaResponse,
  toGoogleQuotaLimit,
} from '@sheetgate/proto';
import { type Logger, SheetgateError } from '@sheetgate/service-runtime';
import {
  type GoogleQuotaScheduler,
  LEASE_VALID_MS,
  MAX_LEASE_TURNS,
  type QuotaBucket,
  type QuotaTurn,
} from '../google-quota/index.ts';
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
        const requested = request.requested || 1;
        if (!(requested >= 1 && requested <= MAX_LEASE_TURNS))
          throw new SheetgateError('invalid_argument', `requested must be 0..${MAX_LEASE_TURNS}`);
        const turn = await scheduler.acquire(userId, bucket, requested);
        deps.onTurn?.(bucket, turn);
        return turn.granted
          ? {
              granted: true,
              retryAfterMs: 0,
              limitedBy: 'GOOGLE_QUOTA_LIMIT_UNSPECIFIED',
              turns: turn.turns,
              validForMs: turn.turns > 1 ? LEASE_VALID_MS : 0,
            }
          : {
              granted: false,
              retryAfterMs: Math.min(Math.max(1, Math.ceil(turn.retryAfterMs)), 2 ** 31 - 1),
              limitedBy: toGoogleQuotaLimit(turn.limitedBy),
              turns: 0,
              validForMs: 0,
            };
      },
    ),
    returnGoogleQuota: unaryHandler<ReturnGoogleQuotaRequest, ReturnGoogleQuotaResponse>(
      logger,
      'ReturnGoogleQuota',
      async (request) => {
        const { userId, bucket } = checked(request);
        if (!(request.count >= 1 && request.count <= MAX_LEASE_TURNS))
          throw new SheetgateError('invalid_argument', `count must be 1..${MAX_LEASE_TURNS}`);
        await scheduler.giveBack(userId, bucket, request.count);
        return {};
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
