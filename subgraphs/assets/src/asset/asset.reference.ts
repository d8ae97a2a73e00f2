// Resolves `Asset` references from other subgraphs (an entry's `referencedAssets`): active assets the caller may read.
import { requestLoader, type Context } from '@cp/graphql';
import { Asset } from './asset.entity';

/**
 * The subgraph that hands out a reference has checked the caller's read rights on its project; this only keeps the
 * answer inside the caller's organization (and an API key's project), and leaves deleted assets out.
 */
export async function resolveAssetReference(ref: { id: string }, ctx: Context): Promise<Asset | null> {
  const principal = ctx.principal;
  if (principal.kind === 'anonymous') return null;
  const project = principal.kind === 'apiKey' ? { projectId: principal.projectId } : {};
  const loader = requestLoader(ctx, 'Asset', (ids) =>
    ctx.em.find(Asset, {
      id: { $in: [...ids] },
      organizationId: principal.organizationId,
      ...project,
      status: { $ne: 'deleted' },
    }),
  );
  return loader.load(ref.id);
}
