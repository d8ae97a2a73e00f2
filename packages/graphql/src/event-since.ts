// The `since` filter of the event log, read alike by the REST event routes and the GraphQL `events` query.
import { BadRequestError } from '@cp/errors';

/**
 * An ISO 8601 instant the database can compare with, or undefined: years beyond 0001–9999 are valid JavaScript dates
 * but out of range for PostgreSQL (such a value would fail there instead of at the edge). Also search date filters.
 */
export function storableInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const at = new Date(value);
  const year = at.getUTCFullYear();
  return Number.isNaN(at.getTime()) || year < 1 || year > 9999 ? undefined : at;
}

/** An ISO 8601 instant, or BAD_REQUEST naming `since`. */
export function eventSince(value: string | null | undefined): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const since = storableInstant(value);
  if (!since) {
    throw new BadRequestError('since must be an ISO 8601 timestamp between the years 0001 and 9999.', {
      parameter: 'since',
    });
  }
  return since;
}
