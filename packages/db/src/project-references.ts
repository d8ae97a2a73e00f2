// Ids a record points at (folders, layout components, template entries) must name records of its own project.
import { ValidationFailedError, type FieldError } from '@cp/errors';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from './transaction-sql';

/** A reference to check: the table that owns the target, the JSON pointer of the input member, and the ids given. */
export interface ProjectReference {
  table: 'folder' | 'component' | 'content';
  path: string;
  ids: readonly string[];
  /** Extra condition on the target row, e.g. `"type" = 'layout'`, with what to tell the caller when it fails. */
  where?: { sql: string; message: string };
}

/**
 * Refuses (422, one error per bad id) references to records that don't exist in the project or are deleted. Raw SQL
 * because the tables belong to other subgraphs in a split deployment; all of them live in the one database.
 */
export async function assertProjectReferences(
  em: EntityManager,
  scope: { organizationId: string; projectId: string },
  references: ProjectReference[],
): Promise<void> {
  const errors: FieldError[] = [];
  for (const ref of references) {
    const ids = [...new Set(ref.ids)];
    if (ids.length === 0) continue;
    const live = ref.table === 'folder' ? '' : ` and "status" <> 'deleted'`;
    const found = await sql<{ id: string; fits: boolean }>(
      em,
      `select "id", ${ref.where?.sql ?? 'true'} as fits from "${ref.table}"
        where "organization_id" = ? and "project_id" = ? and "id" in (select jsonb_array_elements_text(?::jsonb))${live}`,
      [scope.organizationId, scope.projectId, JSON.stringify(ids)],
    );
    const byId = new Map(found.map((row) => [row.id, row.fits]));
    ref.ids.forEach((id, index) => {
      const path = ref.path.endsWith('/') ? `${ref.path}${index}` : ref.path;
      if (!byId.has(id)) errors.push({ path, message: `no such ${ref.table} in this project: ${JSON.stringify(id)}` });
      else if (!byId.get(id)) errors.push({ path, message: ref.where!.message });
    });
  }
  if (errors.length > 0)
    throw new ValidationFailedError(errors, 'The request refers to records that are not in this project.');
}

/** `folderId` (content, assets): a folder of the project, or none. */
export function assertProjectFolder(
  em: EntityManager,
  scope: { organizationId: string; projectId: string },
  folderId: string | null | undefined,
) {
  return assertProjectReferences(em, scope, [{ table: 'folder', path: '/folderId', ids: folderId ? [folderId] : [] }]);
}
