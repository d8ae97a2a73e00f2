// The access subgraph: organizations, projects, users, roles, API keys and sign-in.
import type { Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph, type Context } from '@cp/graphql';
import type { SubgraphModule } from '@cp/host';
import { accessRoutes } from './routes';
import { ApiKey } from './api-key/api-key.entity';
import { ApiKeyResolver } from './api-key/api-key.resolver';
import { AuthResolver } from './auth/auth.resolver';
import { AuthService } from './auth/auth.service';
import { bootstrap } from './bootstrap';
import { TokenService } from './auth/tokens';
import { PrincipalCache } from './auth/principal-cache';
import { limiterSignInThrottle, memorySignInThrottle } from './auth/sign-in-throttle';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { accessMigrations } from './migrations';
import { Organization } from './organization/organization.entity';
import { OrganizationResolver } from './organization/organization.resolver';
import { Project } from './project/project.entity';
import { ProjectResolver } from './project/project.resolver';
import { Role } from './role/role.entity';
import { RoleResolver } from './role/role.resolver';
import { User } from './user/user.entity';
import { resolveUserReference } from './user/user.reference';
import { UserResolver } from './user/user.resolver';

export const accessDatabase: DatabaseModule = {
  name: 'access',
  entities: [Organization, Project, Role, User, ApiKey],
  migrations: accessMigrations,
};

/**
 * `cacheTtlSeconds` only from a caller that feeds the cache access events (the gateway); without it
 * (tests, standalone subgraphs) nothing is cached and every request reads the database.
 */
export function createAuthService(
  config: { auth: Pick<Config['auth'], 'tokenTtlSeconds'>; rateLimit?: Config['rateLimit'] },
  secret: Uint8Array,
  options: { cacheTtlSeconds?: number; signInLimiter?: RateLimiterAbstract } = {},
): AuthService {
  const auth = new AuthService(
    new TokenService(secret),
    config.auth.tokenTtlSeconds,
    new PrincipalCache((options.cacheTtlSeconds ?? 0) * 1000),
  );
  // The shared store (Redis or PostgreSQL) when the host has one, so failures count across every process.
  if (options.signInLimiter) auth.signInThrottle = limiterSignInThrottle(options.signInLimiter);
  else if (config.rateLimit)
    auth.signInThrottle = memorySignInThrottle(config.rateLimit.signInFailures, config.rateLimit.signInWindowSeconds);
  return auth;
}

export function buildAccessSubgraph(auth: AuthService): Promise<BuiltSubgraph> {
  return buildFederatedSchema({
    name: 'access',
    resolvers: [AuthResolver, ApiKeyResolver, OrganizationResolver, ProjectResolver, RoleResolver, UserResolver],
    instances: [new AuthResolver(auth), new ApiKeyResolver(auth.apiKeys)],
    referenceResolvers: {
      User: { __resolveReference: (ref: { id: string }, ctx: Context) => resolveUserReference(ref, ctx) },
    },
  });
}

/** The access subgraph as its hosts run it. */
export const accessModule: SubgraphModule<AuthService> = {
  name: 'access',
  database: accessDatabase,
  routes: accessRoutes,
  restShape: {
    /** Nested users are references: sofa selects `createdBy` as `{id}` and REST sends the id string. */
    models: ['User'],
    /** `LoginResult.user` is the signed-in user itself, and `UserList.data` the listed users: not references. */
    ignore: ['LoginResult.user', 'UserList.data'],
  },
  build: ({ config, secret, auth }) => buildAccessSubgraph(auth ?? createAuthService(config, secret)),
  bootstrap: ({ config, orm, logger }) => bootstrap(orm.em.fork(), config.admin, logger),
};
