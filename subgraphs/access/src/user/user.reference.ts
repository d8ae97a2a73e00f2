// Resolves `User` references from other subgraphs (e.g. `ContentType.createdBy`), within the caller's organization only.
import type { Context } from '@cp/graphql';
import { User } from './user.entity';

export async function resolveUserReference(ref: { id: string }, ctx: Context): Promise<User | null> {
  const principal = ctx.principal;
  if (principal.kind === 'anonymous') return null;
  return ctx.em.findOne(User, { id: ref.id, organizationId: principal.organizationId });
}
