// D12: tag names carried by content and assets create tag records; one raw insert shared by both subgraphs.
import type { EntityManager } from '@mikro-orm/postgresql';

/** Creates the tags an entry or asset names that don't exist yet, in the caller's transaction. */
export async function ensureTags(em: EntityManager, scope: { organizationId: string; projectId: string }, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await em.getConnection().execute(
    `insert into "tag" ("id", "organization_id", "project_id", "name", "created_at", "updated_at")
     select gen_random_uuid()::text, ?, ?, n, now(), now() from unnest(?::text[]) as n
     on conflict ("project_id", "name") do nothing`,
    [scope.organizationId, scope.projectId, `{${names.map((n) => JSON.stringify(n)).join(',')}}`],
    'run',
    em.getTransactionContext(),
  );
}
