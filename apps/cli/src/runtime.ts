// What every database command needs: the configuration (packages/config), the database with every subgraph's module, the acting user.
import { ConfigError, loadConfig, type Config } from '@cp/config';
import { DataDirInUseError, openDatabase, type Database } from '@cp/db';
import { allPermissions, type Permissions, type ProjectScope, type UserPrincipal } from '@cp/graphql';
import { INITIAL_DATA, SUBGRAPHS } from '@cp/supergraph';
import { OWNER_ROLE, Project, Role, User } from '@cp/subgraph-access';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CliError, EXIT, RefusedError } from './errors';

export function cliConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message);
    throw err;
  }
}

/** Opens DATABASE_URL (or the embedded database under DATA_DIR) with every subgraph's module, migrated like the service does it. */
export async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  let db: Database;
  try {
    db = await openDatabase({ config, modules: SUBGRAPHS.map((s) => s.database), initialData: INITIAL_DATA });
  } catch (err) {
    if (err instanceof DataDirInUseError) {
      throw new CliError(
        `The embedded database under ${err.dataDir} is open in process ${err.pid} (the service?), and it allows one process at a time: ` +
          "stop the service and run the command again, or do this through the running service's API.",
        EXIT.inUse,
      );
    }
    const where = config.database.url ? 'DATABASE_URL' : `the embedded database under ${config.database.dataDir}`;
    throw new CliError(`Cannot open ${where}: ${(err as Error).message}`);
  }
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

export async function requireProject(em: EntityManager, scope: ProjectScope): Promise<void> {
  const project = await em.findOne(Project, { id: scope.projectId, organizationId: scope.organizationId });
  if (!project || project.deletedAt) {
    throw new RefusedError(
      `Project ${scope.organizationId}/${scope.projectId} does not exist (create it first, or start the service once to bootstrap "default").`,
    );
  }
}

/**
 * The user the command acts as: `--as <email>`, else the organization's oldest Owner. Services then apply the
 * same rules as for that user's requests (no privilege escalation), and events and records name that user.
 */
export async function actingUser(em: EntityManager, organizationId: string, email?: string): Promise<UserPrincipal> {
  let user: User | null;
  if (email) {
    user = await em.findOne(User, { organizationId, email: email.trim().toLowerCase() });
    if (!user) throw new RefusedError(`No user ${email} in organization ${organizationId}.`);
  } else {
    const owner = await em.findOne(Role, { organizationId, name: OWNER_ROLE });
    user = owner && (await em.findOne(User, { organizationId, roleId: owner.id }, { orderBy: { createdAt: 'asc' } }));
    if (!user) throw new RefusedError(`Organization ${organizationId} has no Owner user to act as; pass --as <email>.`);
  }
  const role = await em.findOne(Role, { id: user.roleId });
  const permissions: Permissions =
    role?.name === OWNER_ROLE ? allPermissions() : ((role?.permissions as Permissions) ?? {});
  return { kind: 'user', userId: user.id, organizationId, permissions };
}
