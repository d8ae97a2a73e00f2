// Test support: run an operation against one subgraph schema with a given principal, as the gateway would.
import { graphql, type GraphQLSchema } from 'graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { allPermissions, DEFAULT_LOCALES, type Context, type Principal, type ProjectDirectory } from '@cp/principal';

export function adminPrincipal(organizationId: string, userId = 'user-1'): Principal {
  return { kind: 'user', userId, organizationId, permissions: allPermissions() };
}

/** Projects known to exist in a test, standing in for the access subgraph's project table. */
export function fixedProjects(...pairs: [organizationId: string, projectId: string][]): ProjectDirectory {
  const known = new Set(pairs.map(([o, p]) => `${o}/${p}`));
  return {
    exists: async (o, p) => known.has(`${o}/${p}`),
    locales: async (o, p) => (known.has(`${o}/${p}`) ? DEFAULT_LOCALES : undefined),
  };
}

export interface RunOptions {
  schema: GraphQLSchema;
  em: EntityManager;
  principal: Principal;
  projects: ProjectDirectory;
}

/** Executes with a fresh `em.fork()` per call, like one request. */
export async function runOperation(options: RunOptions, source: string, variableValues?: Record<string, unknown>) {
  const contextValue: Context = {
    em: options.em.fork(),
    principal: options.principal,
    requestId: 'test',
    lang: 'en',
    projects: options.projects,
  };
  return graphql({ schema: options.schema, source, variableValues, contextValue });
}
