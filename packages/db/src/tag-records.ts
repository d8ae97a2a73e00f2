// Tag names carried by content and assets create tag records; one raw insert shared by both subgraphs.
import { ValidationFailedError } from '@cp/errors';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from './transaction-sql';

/** As a tag's own name (`requireName`): the column holds 255 characters. */
const MAX_TAG_NAME = 255;

/**
 * Creates the tags an entry or asset names that don't exist yet, in the caller's transaction. A name longer than a
 * tag's is 422 naming its place in `tags` (the raw insert is not checked by the ORM's column lengths).
 */
export async function ensureTags(
  em: EntityManager,
  scope: { organizationId: string; projectId: string },
  names: string[],
): Promise<void> {
  if (names.length === 0) return;
  const tooLong = names.flatMap((name, i) =>
    [...name].length > MAX_TAG_NAME
      ? [{ path: `/tags/${i}`, message: `must be at most ${MAX_TAG_NAME} characters` }]
      : [],
  );
  if (tooLong.length) throw new ValidationFailedError(tooLong);
  await sql(
    em,
    `insert into "tag" ("id", "organization_id", "project_id", "name", "created_at", "updated_at")
     select gen_random_uuid()::text, ?, ?, n, now(), now() from jsonb_array_elements_text(?::jsonb) as n
     on conflict ("project_id", "name") do nothing`,
    // A JSON array, not an array literal: JSON's escapes (`\n`, `\u0001`) mean nothing to PostgreSQL's array syntax.
    [scope.organizationId, scope.projectId, JSON.stringify(names)],
    true,
  );
}
