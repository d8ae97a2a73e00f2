// Guards for organization-wide administration (users, roles, organizations, projects) and privilege checks.
import { ForbiddenError } from '@cp/errors';
import {
  authorizeOrganization,
  type Action,
  type Context,
  type Permissions,
  type Resource,
  type UserPrincipal,
} from '@cp/graphql';
import { firstExceedingFlag } from '../role/permissions';

/**
 * Organization-level administration needs a token without a project scope: a project-scoped token (for
 * automation) is limited to one project, so it cannot manage users, roles or other projects.
 */
export function authorizeOrganizationAdmin<R extends Resource>(
  ctx: Context,
  organizationId: string,
  resource: R,
  action: Action<R>,
): UserPrincipal {
  const principal = authorizeOrganization(ctx, organizationId, resource, action);
  if (principal.projectId !== undefined) throw new ForbiddenError(resource, action);
  return principal;
}

/** No privilege escalation: a caller can only grant, or act on holders of, flags it holds itself (403 names the first extra flag). */
export function assertWithinCaller(caller: UserPrincipal, granted: Permissions): void {
  const extra = firstExceedingFlag(granted, caller.permissions);
  if (extra) throw new ForbiddenError(extra.resource, extra.action);
}
