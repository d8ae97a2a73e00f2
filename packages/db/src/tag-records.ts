// D12: tag names carried by content and assets create tag records; one raw insert shared by both subgraphs.
import type { EntityManager } from '@mikro-orm/postgresql';

/** Creates the tags an entry or asset names that don't exist yet, in the caller's transaction. */
export async function ensureTags(
  em: EntityManager,
  scope: { organizationId: string; projectId: string },
  names: string[],
): Promise<void> {
  if (names.length === 0) return;
  await em.getConnection().execute(
    `insert into "tag" ("id", "organization_id", "project_id", "name", "created_at", "updated_at")
     select gen_random_uuid()::text, ?, ?, n, now(), now() from jsonb_array_elements_text(?::jsonb) as n
     on conflict ("project_id", "name") do nothing`,
    // A JSON array, not an array literal: JSON's escapes (`\n`, `\u0001`) mean nothing to PostgreSQL's array syntax.
    [scope.organizationId, scope.projectId, JSON.stringify(names)],
    'run',
    em.getTransactionContext(),
  );
}
