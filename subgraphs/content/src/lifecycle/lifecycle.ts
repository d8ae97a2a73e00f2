// The state table shared by content types and content entries (spec "States and transitions", D3).
import { EntityStatus, transitionGuard } from '@cp/graphql';

const { draft, modified, published, unpublished, deleted } = EntityStatus;

export type LifecycleAction = 'update' | 'publish' | 'unpublish' | 'discard' | 'rollback' | 'delete' | 'restore' | 'migrate';

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

/** The lifecycle transitions other than edits, each with the event action it records (D9). */
export const TRANSITION_EVENTS = {
  publish: 'published',
  unpublish: 'unpublished',
  discard: 'discarded',
  rollback: 'rolledBack',
  delete: 'deleted',
  restore: 'restored',
} as const;

export type Transition = keyof typeof TRANSITION_EVENTS;

/** The event a transition records; API keys may see it when it changes what clients see (D9). */
export function transitionEvent(action: Transition, wasPublished: boolean) {
  const published = action === 'publish' || action === 'unpublish' || (action === 'delete' && wasPublished);
  return { action: TRANSITION_EVENTS[action], published };
}
