// `content-platform keys create|list|revoke`: API keys through the access subgraph's ApiKeyService (same rules and events as the API).
import { ApiKeyService } from '@cp/subgraph-access';
import type { ProjectScope } from '@cp/graphql';
import { actingUser, cliConfig, requireProject, withDatabase } from '../runtime';

export interface KeyScopeOptions {
  organization: string;
  project: string;
  as?: string;
}

const service = new ApiKeyService();
const scopeOf = (o: KeyScopeOptions): ProjectScope => ({ organizationId: o.organization, projectId: o.project });

export function createKey(options: KeyScopeOptions & { name: string; description?: string }) {
  return withDatabase(cliConfig(), async (db) => {
    const em = db.orm.em.fork();
    await requireProject(em, scopeOf(options));
    const actor = await actingUser(em, options.organization, options.as);
    const created = await service.create(
      em,
      scopeOf(options),
      { name: options.name, description: options.description },
      actor.userId,
    );
    return {
      id: created.id,
      name: created.name,
      key: created.key,
      organizationId: created.organizationId,
      projectId: created.projectId,
      createdAt: created.createdAt,
    };
  });
}

export function listKeys(options: KeyScopeOptions) {
  return withDatabase(cliConfig(), async (db) => {
    const em = db.orm.em.fork();
    await requireProject(em, scopeOf(options));
    const rows: { id: string; name: string; status: string; createdAt: Date; lastUsed?: Date | null }[] = [];
    for (let page = 1; ; page++) {
      const result = await service.list(em, scopeOf(options), { page, limit: 100 });
      rows.push(
        ...result.data.map((k) => ({
          id: k.id,
          name: k.name,
          status: k.status,
          createdAt: k.createdAt,
          lastUsed: k.lastUsed ?? null,
        })),
      );
      if (page * 100 >= result.pagination.total) return rows;
    }
  });
}

export function revokeKey(id: string, options: KeyScopeOptions) {
  return withDatabase(cliConfig(), async (db) => {
    const em = db.orm.em.fork();
    await requireProject(em, scopeOf(options));
    const actor = await actingUser(em, options.organization, options.as);
    const key = await service.revoke(em, scopeOf(options), id, actor.userId);
    return { id: key.id, name: key.name, status: key.status };
  });
}
