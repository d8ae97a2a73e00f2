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
  description: 'Lifecycle status; `version` is null on `draft` and `modified` (D3).',
  valuesConfig: {
    draft: { description: 'Never published; edits overwrite freely.' },
    modified: { description: 'A working copy over a published version, which clients still see.' },
    published: { description: 'The current version is published and immutable.' },
    unpublished: { description: 'Withdrawn from clients; history kept.' },
    deleted: { description: 'Soft-deleted; history kept, can be restored.' },
  },
});
