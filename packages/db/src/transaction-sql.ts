// A plain SQL statement on the request's transaction: for writes and reads that need no entity.
import type { EntityManager } from '@mikro-orm/postgresql';

/** Runs `query` (`?` placeholders) with `params` in `em`'s transaction, if any; the rows it returns. */
export function sql<T>(em: EntityManager, query: string, params: unknown[]): Promise<T[]> {
  return em.getConnection().execute(query, params, 'all', em.getTransactionContext()) as Promise<T[]>;
}
