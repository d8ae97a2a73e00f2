// The state table shared by content types and content entries (spec "States and transitions", D3).
import type { LifecycleAction } from '@cp/db';
import { EntityStatus, transitionGuard } from '@cp/graphql';

const { draft, modified, published, unpublished, deleted } = EntityStatus;

export const assertTransition = transitionGuard<LifecycleAction>({
  update: { from: [draft, modified, published, unpublished], requested: modified },
  publish: { from: [draft, modified, unpublished], requested: published },
  unpublish: { from: [published], requested: unpublished },
  discard: { from: [modified], requested: published },
  rollback: { from: [published], requested: modified },
  delete: { from: [draft, modified, published, unpublished], requested: deleted },
  restore: { from: [deleted], requested: modified },
  migrate: { from: [draft, modified, published, unpublished], requested: modified },
});

/** An edit keeps a draft a draft; anything once published becomes a working copy with `version` null (D3). */
export function afterEdit(entity: { status: EntityStatus; version?: number | null }): void {
  if (entity.status !== draft) {
    entity.status = modified;
    entity.version = null;
  }
}

/** Restore gives `modified` when a published version exists, otherwise `draft` (D3). */
export function restoredStatus(lastPublishedVersion: number | null | undefined): EntityStatus {
  return lastPublishedVersion ? modified : draft;
}

/** Published-state events that API keys may see: publish, unpublish and deleting what was published (D9). */
export function publishedEvent(action: LifecycleAction, wasPublished: boolean): boolean {
  return action === 'publish' || action === 'unpublish' || (action === 'delete' && wasPublished);
}
