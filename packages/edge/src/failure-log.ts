// How answered 5xx errors reach the log: INTERNAL in full (a bug), UNAVAILABLE as a throttled one-liner (an outage).
import type { Logger } from '@cp/config';
import type { ErrorCode } from '@cp/errors';

/** During an outage every request fails alike: one line per interval, with how many it stands for, is enough. */
const UNAVAILABLE_LOG_INTERVAL_MS = 5000;
let lastUnavailableLog = 0;
let unavailableSinceLog = 0;

export function logAnsweredFailure(
  logger: Logger | undefined,
  code: ErrorCode,
  err: unknown,
  requestId?: string,
): void {
  if (code === 'UNAVAILABLE') {
    unavailableSinceLog++;
    const now = Date.now();
    if (now - lastUnavailableLog < UNAVAILABLE_LOG_INTERVAL_MS) return;
    const reason = (err as { message?: unknown } | undefined)?.message;
    logger?.warn(
      { code, requestId, reason, refused: unavailableSinceLog },
      'answered 503: a backing service is unavailable',
    );
    lastUnavailableLog = now;
    unavailableSinceLog = 0;
  } else if (code === 'INTERNAL') {
    logger?.error({ err, requestId }, 'unexpected error');
  }
}
