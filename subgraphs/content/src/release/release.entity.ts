// A release: publish and unpublish actions on content entries and content types, applied together or not at all.
import { RevisionedProjectEntity } from '@cp/db';
import { Entity, Enum, Index, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum ReleaseStatus {
  open = 'open',
  published = 'published',
  failed = 'failed',
}

registerEnumType(ReleaseStatus, {
  name: 'ReleaseStatus',
  description: 'Where a release stands.',
  valuesConfig: {
    open: { description: 'Being prepared; can be edited, deleted and published.' },
    published: { description: 'Every item was applied; it can no longer change.' },
    failed: {
      description: 'A scheduled publish was refused and nothing changed; it can be edited and published again.',
    },
  },
});

export const RELEASE_RESOURCE_TYPES = ['content', 'content-types'] as const;
export const RELEASE_ACTIONS = ['publish', 'unpublish'] as const;
export type ReleaseResourceType = (typeof RELEASE_RESOURCE_TYPES)[number];
export type ReleaseAction = (typeof RELEASE_ACTIONS)[number];

@ObjectType({ description: 'One action of a release.' })
export class ReleaseItem {
  @Field(() => String, { description: '`content` or `content-types`.' })
  resourceType!: ReleaseResourceType;

  @Field(() => ID, { description: 'The entry or content type.' })
  resourceId!: string;

  @Field(() => String, { description: '`publish` or `unpublish`.' })
  action!: ReleaseAction;
}

@ObjectType({
  description: 'Publish and unpublish actions on entries and content types that go live together, or not at all.',
})
@Entity({ tableName: 'release' })
@Index({ properties: ['projectId', 'createdAt'] })
export class Release extends RevisionedProjectEntity {
  @Field({ description: 'Name.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'What the release is for.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => ReleaseStatus, { description: 'Where the release stands.' })
  @Enum({ items: () => ReleaseStatus })
  status: ReleaseStatus & Opt = ReleaseStatus.open;

  @Field(() => [ReleaseItem], { description: 'The actions, at most 1,000, one per resource.' })
  @Property({ type: 'json' })
  items: ReleaseItem[] & Opt = [];

  @Field(() => Date, { nullable: true, description: 'When the release was published.' })
  @Property({ type: 'timestamptz', nullable: true })
  publishedAt?: Date | null;

  @Property({ length: 64 })
  createdById!: string;
}
