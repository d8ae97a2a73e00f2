// Resolves `User` references from other subgraphs (e.g. `ContentType.createdBy`), within the caller's organization only.
import { requestLoader, type Context } from '@cp/graphql';
import { User } from './user.entity';

export async function resolveUserReference(ref: { id: string }, ctx: Context): Promise<User | null> {
  const principal = ctx.principal;
  if (principal.kind === 'anonymous') return null;
  const loader = requestLoader(ctx, 'User', (ids) =>
    ctx.em.find(User, { id: { $in: [...ids] }, organizationId: principal.organizationId }),
  );
  return loader.load(ref.id);
}
