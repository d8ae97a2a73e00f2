// The state table shared by content types and content entries (spec "States and transitions").
import type { LifecycleAction } from '@cp/db';
import { EntityStatus, transitionGuard } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { cancelPendingSchedules } from '../schedule/cancel-schedules';
import type { ScheduleResourceType } from '../schedule/schedule.entity';

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

/** An edit keeps a draft a draft; anything once published becomes a working copy with `version` null. */
export function afterEdit(entity: { status: EntityStatus; version?: number | null }): void {
  if (entity.status !== draft) {
    entity.status = modified;
    entity.version = null;
  }
}

/** What the changes below touch of a content type or an entry. */
interface Versioned {
  id: string;
  status: EntityStatus;
  version?: number | null;
  lastPublishedVersion?: number | null;
}

/** Unpublish: the event names the version taken off the published API. */
export async function unpublishChange(_tx: EntityManager, record: Versioned): Promise<number | null | undefined> {
  record.status = unpublished;
  return record.version;
}

/** Delete cancels the record's pending schedules in the same transaction. */
export function deleteChange(resourceType: ScheduleResourceType) {
  return async (tx: EntityManager, record: Versioned): Promise<number | null | undefined> => {
    record.status = deleted;
    await cancelPendingSchedules(tx, resourceType, record.id);
    return record.version;
  };
}

/** Restore gives `modified` when a published version exists, otherwise `draft`. */
export async function restoreChange(_tx: EntityManager, record: Versioned): Promise<null> {
  record.status = record.lastPublishedVersion ? modified : draft;
  record.version = null;
  return null;
}

/**
 * Published-state events that API keys may see: publish, unpublish, deleting what was published, and restoring it
 * (a restored entry with a published version is `modified`, so its published version is served again).
 */
export function publishedEvent(action: LifecycleAction, wasPublished: boolean): boolean {
  return (
    action === 'publish' || action === 'unpublish' || ((action === 'delete' || action === 'restore') && wasPublished)
  );
}
