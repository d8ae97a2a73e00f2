// The access subgraph: organizations, projects, users, roles, API keys and sign-in.
import type { Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph, type Context } from '@cp/graphql';
import { ApiKey } from './api-key/api-key.entity';
import { ApiKeyResolver } from './api-key/api-key.resolver';
import { AuthResolver } from './auth/auth.resolver';
import { AuthService } from './auth/auth.service';
import { TokenService } from './auth/tokens';
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

export function createAuthService(config: Pick<Config, 'auth'>, secret: Uint8Array): AuthService {
  return new AuthService(new TokenService(secret), config.auth.tokenTtlSeconds);
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
