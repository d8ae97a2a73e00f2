// Read-only views of the components subgraph's tables (packages, components) that content needs; one seam to replace with a federated call.
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface CatalogComponent {
  id: string;
  name: string;
  schema: Record<string, unknown>;
}

export interface PinnedModule {
  id: string;
  name: string;
  compiled: string;
}

/** Per database (a connection per ORM), the tables found to exist: migrations add tables, none drops them again. */
const present = new WeakMap<object, Set<string>>();

/**
 * Runs in the caller's transaction (PGlite serialises connections: a query beside an open transaction would wait for
 * it). A deployment whose components subgraph hasn't migrated yet simply has no packages and no components.
 */
async function query<T>(em: EntityManager, tables: string[], sql: string, params: unknown[]): Promise<T[]> {
  const conn = em.getConnection();
  const ctx = em.getTransactionContext();
  let known = present.get(conn);
  if (!known) present.set(conn, (known = new Set()));
  if (!tables.every((t) => known.has(t))) {
    const [found] = await conn.execute<{ missing: boolean }[]>(
      `select bool_or(to_regclass(t) is null) as missing from unnest(?::text[]) as t`,
      [`{${tables.join(',')}}`],
      'all',
      ctx,
    );
    if (found?.missing) return [];
    tables.forEach((t) => known.add(t));
  }
  return conn.execute<T[]>(sql, params, 'all', ctx);
}

/** The version of the project's latest package, `0.0.0` before any. */
export async function latestPackageVersion(em: EntityManager, scope: ProjectScope): Promise<string> {
  const [row] = await query<{ version: string }>(
    em,
    ['package'],
    'select "version" from "package" where "organization_id" = ? and "project_id" = ? order by "created_at" desc, "id" desc limit 1',
    [scope.organizationId, scope.projectId],
  );
  return row?.version ?? '0.0.0';
}

/** The project's components that content may use (not deleted), with their props schemas. */
export function projectComponents(em: EntityManager, scope: ProjectScope): Promise<CatalogComponent[]> {
  return query<CatalogComponent>(
    em,
    ['component'],
    `select "id", "name", "schema" from "component" where "organization_id" = ? and "project_id" = ? and "status" <> 'deleted'`,
    [scope.organizationId, scope.projectId],
  );
}

/** The compiled code of every component of a package, at its pinned version. */
export function packageModules(
  em: EntityManager,
  scope: ProjectScope,
  packageVersion: string,
): Promise<PinnedModule[]> {
  return query<PinnedModule>(
    em,
    ['package', 'component_version'],
    `select v."component_id" as id, v."name", v."compiled"
       from "package" p, jsonb_to_recordset(p."components") as c(id text, version int), "component_version" v
      where p."organization_id" = ? and p."project_id" = ? and p."version" = ?
        and v."component_id" = c.id and v."version" = c.version`,
    [scope.organizationId, scope.projectId, packageVersion],
  );
}
