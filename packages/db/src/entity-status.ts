// The lifecycle status shared by content types, content and components (spec: States and transitions).
import { registerEnumType } from 'type-graphql';

export enum EntityStatus {
  draft = 'draft',
  modified = 'modified',
  published = 'published',
  unpublished = 'unpublished',
  deleted = 'deleted',
}

registerEnumType(EntityStatus, {
  name: 'EntityStatus',
  description: 'Lifecycle status; `version` is null on `draft` and `modified`.',
  valuesConfig: {
    draft: { description: 'Never published; edits overwrite freely.' },
    modified: { description: 'A working copy over a published version, which clients still see.' },
    published: { description: 'The current version is published and immutable.' },
    unpublished: { description: 'Withdrawn from clients; history kept.' },
    deleted: { description: 'Soft-deleted; history kept, can be restored.' },
  },
});

/**
 * What a preview key sees: the working state of everything in use. `unpublished` (withdrawn on purpose) and
 * `deleted` stay hidden, as from published keys; an edit makes an unpublished item `modified`, and visible again.
 */
export const PREVIEW_STATUSES: readonly EntityStatus[] = [
  EntityStatus.draft,
  EntityStatus.modified,
  EntityStatus.published,
];
