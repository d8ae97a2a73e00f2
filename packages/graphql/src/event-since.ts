// The `since` filter of the event log (D9), read alike by the REST event routes and the GraphQL `events` query.
import { BadRequestError } from '@cp/errors';

/**
 * An ISO 8601 instant, or BAD_REQUEST naming `since`. Years beyond 0001–9999 are valid JavaScript dates but out of
 * range for the database (a far-future `since` failed there instead of here).
 */
export function eventSince(value: string | null | undefined): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const since = new Date(value);
  const year = since.getUTCFullYear();
  if (Number.isNaN(since.getTime()) || year < 1 || year > 9999) {
    throw new BadRequestError('since must be an ISO 8601 timestamp between the years 0001 and 9999.', {
      parameter: 'since',
    });
  }
  return since;
}
