// The access subgraph: organizations, projects, users, roles, API keys and sign-in.
import { createAuthentication, type Authentication } from '@cp/auth';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph, type Context } from '@cp/graphql';
import type { SubgraphModule } from '@cp/host';
import { accessRoutes } from './routes';
import { ApiKey } from './api-key/api-key.entity';
import { ApiKeyResolver } from './api-key/api-key.resolver';
import { AuthResolver } from './auth/auth.resolver';
import { AuthService } from './auth/auth.service';
import { ApiKeyService } from './api-key/api-key.service';
import { bootstrap } from './bootstrap';
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

/** `auth`: the host's authentication (`@cp/auth`), which sign-in calls into: one throttle and principal cache per process. */
export function buildAccessSubgraph(auth: Authentication): Promise<BuiltSubgraph> {
  return buildFederatedSchema({
    name: 'access',
    resolvers: [AuthResolver, ApiKeyResolver, OrganizationResolver, ProjectResolver, RoleResolver, UserResolver],
    instances: [new AuthResolver(new AuthService(auth.signIn)), new ApiKeyResolver(new ApiKeyService())],
    referenceResolvers: {
      User: { __resolveReference: (ref: { id: string }, ctx: Context) => resolveUserReference(ref, ctx) },
    },
  });
}

/** The access subgraph as its hosts run it. */
export const accessModule: SubgraphModule<Authentication> = {
  name: 'access',
  database: accessDatabase,
  routes: accessRoutes,
  restShape: {
    /** Nested users are references: sofa selects `createdBy` as `{id}` and REST sends the id string. */
    models: ['User'],
    /** `LoginResult.user` is the signed-in user itself, and `UserList.data` the listed users: not references. */
    ignore: ['LoginResult.user', 'UserList.data'],
  },
  // Without a host (`npm run compose`) an authentication of its own: the schema is all that is used.
  build: ({ config, secret, auth }) => buildAccessSubgraph(auth ?? createAuthentication(config, secret)),
  bootstrap: ({ config, orm, logger }) => bootstrap(orm.em.fork(), config.admin, logger),
};
