// Answers "does this project exist in this organization" for the authorization guards of every subgraph.
import type { ProjectDirectory } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';

const TTL_MS = 10_000;

/** Reads the access subgraph's `project` table; positive answers are cached briefly, keyed by (organization, project). */
export function sqlProjectDirectory(orm: MikroORM): ProjectDirectory {
  const seen = new Map<string, number>();
  return {
    async exists(organizationId, projectId) {
      const key = `${organizationId}/${projectId}`;
      const at = seen.get(key);
      if (at !== undefined && Date.now() - at < TTL_MS) return true;
      const rows = await orm.em
        .getConnection()
        .execute('select 1 from "project" where "id" = ? and "organization_id" = ? and "deleted_at" is null', [
          projectId,
          organizationId,
        ]);
      if (rows.length === 0) return false;
      if (seen.size > 10_000) seen.clear();
      seen.set(key, Date.now());
      return true;
    },
  };
}
