// Serialises "reference this target" against "delete this target" across modules, without row locks on the target.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from './transaction-sql';

/** The advisory lock class of reference targets (two-key form, apart from the one-key locks of the dispatcher etc.). */
const REFERENCE_LOCK = 7_240_116;

/**
 * Transaction-scoped advisory locks on the ids of entries or assets. A write that references targets takes them
 * `shared` before it checks that they exist; a delete takes its target's `exclusive` before it looks for referrers.
 * One of the two then waits for the other's commit and sees it (the delete finds the new link: 409; or the write finds
 * the target deleted: 422). Writers don't block each other, so two entries referencing each other can be saved
 * concurrently without a deadlock, which share-locking the target rows (held under each writer's own row lock) risked.
 */
export async function lockReferenceTargets(
  em: EntityManager,
  ids: readonly string[],
  mode: 'shared' | 'exclusive',
): Promise<void> {
  if (ids.length === 0) return;
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await sql(
    em,
    `select ${fn}(${REFERENCE_LOCK}, hashtext(t)) from (select distinct t from jsonb_array_elements_text(?::jsonb) t order by t) ids`,
    [JSON.stringify(ids)],
    true,
  );
}
