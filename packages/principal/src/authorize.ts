// Authorization guards shared by all subgraphs: tenancy first (foreign ids are 404), then role flags (403).
import { ForbiddenError, NotFoundError, UnauthorizedError } from '@cp/errors';
import type { Context } from './context';
import {
  visibilityOf,
  type Action,
  type ApiKeyPrincipal,
  type Resource,
  type UserPrincipal,
  type Visibility,
} from './principal';

export interface ProjectScope {
  organizationId: string;
  projectId: string;
}

function requireAuthenticated(ctx: Context): UserPrincipal | ApiKeyPrincipal {
  if (ctx.principal.kind === 'anonymous') throw new UnauthorizedError();
  return ctx.principal;
}

/** Admin operations on an organization: a user of that organization holding the flag. */
export function authorizeOrganization<R extends Resource>(
  ctx: Context,
  organizationId: string,
  resource: R,
  action: Action<R>,
): UserPrincipal {
  const principal = requireAuthenticated(ctx);
  if (principal.kind !== 'user') throw new ForbiddenError(resource, action);
  // Another tenant's ids look exactly like ids that do not exist.
  if (principal.organizationId !== organizationId) throw new NotFoundError('Organization', organizationId);
  const flags = principal.permissions[resource] as Partial<Record<string, boolean>> | undefined;
  if (!flags?.[action]) throw new ForbiddenError(resource, action);
  (ctx.granted ??= new Set()).add(`${resource}.${String(action)}`);
  return principal;
}

/** Admin operations inside a project: organization rules, the token's project scope, and the project's existence. */
export async function authorizeProject<R extends Resource>(
  ctx: Context,
  scope: ProjectScope,
  resource: R,
  action: Action<R>,
): Promise<UserPrincipal> {
  const principal = authorizeOrganization(ctx, scope.organizationId, resource, action);
  if (principal.projectId !== undefined && principal.projectId !== scope.projectId) {
    throw new NotFoundError('Project', scope.projectId);
  }
  if (!(await ctx.projects.exists(scope.organizationId, scope.projectId))) {
    throw new NotFoundError('Project', scope.projectId);
  }
  return principal;
}

/**
 * Client reads (`/api/v1`, key-holder GraphQL): an API key of exactly this project, or an admin with read rights.
 * Returns what the caller reads: `published` state only (API keys), the working state (preview keys), or
 * everything (`admin`).
 */
export async function authorizeClientRead<R extends Resource>(
  ctx: Context,
  scope: ProjectScope,
  resource: R,
): Promise<{ visibility: Visibility }> {
  const principal = requireAuthenticated(ctx);
  if (principal.kind === 'apiKey') {
    if (principal.organizationId !== scope.organizationId || principal.projectId !== scope.projectId) {
      throw new NotFoundError('Project', scope.projectId);
    }
    return { visibility: visibilityOf(principal) };
  }
  await authorizeProject(ctx, scope, resource, 'read' as Action<R>);
  return { visibility: 'admin' };
}
