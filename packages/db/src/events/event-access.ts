// Who may read which events: API keys their project's published-state events only, preview keys also those of
// the working state, admins everything in their projects.
import { NotFoundError, UnauthorizedError } from '@cp/errors';
import { authorizeProject, visibilityOf, type Context } from '@cp/principal';
import type { EventFilter } from './event-query';

export type EventScope = Omit<EventFilter, 'visibility' | 'organizationId'> & { organizationId?: string };

/** Resolves the filter a caller may read; a foreign project is 404 like an unknown one. */
export async function eventFilterFor(
  ctx: Pick<Context, 'principal' | 'projects'>,
  scope: EventScope,
): Promise<EventFilter> {
  const principal = ctx.principal;
  if (principal.kind === 'anonymous') throw new UnauthorizedError();
  if (principal.kind === 'apiKey') {
    if (
      principal.projectId !== scope.projectId ||
      (scope.organizationId && scope.organizationId !== principal.organizationId)
    ) {
      throw new NotFoundError('Project', scope.projectId);
    }
    return { ...scope, organizationId: principal.organizationId, visibility: visibilityOf(principal) };
  }
  const organizationId = scope.organizationId ?? principal.organizationId;
  await authorizeProject(ctx as Context, { organizationId, projectId: scope.projectId }, 'projects', 'read');
  return { ...scope, organizationId, visibility: 'admin' };
}
