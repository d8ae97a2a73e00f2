// A component: TypeScript source of a view or layout, compiled by the service; versioned through packages.
import { EntityStatus, JSONObjectScalar } from '@cp/graphql';
import { Entity, Enum, Index, Property, Unique, type Opt } from '@mikro-orm/core';
import { RevisionedProjectEntity } from '@cp/db';
import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({
  description: 'A view or layout written in TypeScript; the service compiles it and derives its props schema.',
})
@Directive('@key(fields: "id")')
@Entity({ tableName: 'component' })
@Unique({ properties: ['projectId', 'name'] })
@Index({ properties: ['projectId', 'createdAt'] })
export class Component extends RevisionedProjectEntity {
  @Field({ description: 'Name, unique in the project; content refers to components by name.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Extracted from the source’s `metadata()`.' })
  @Property({ nullable: true })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'Extracted from the source’s `metadata()`.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field({ description: '`view` or `layout`.' })
  @Property({ length: 16 })
  type!: 'view' | 'layout';

  @Field(() => EntityStatus, { description: 'Lifecycle status (`unpublished` does not apply to components).' })
  @Enum({ items: () => EntityStatus })
  status: EntityStatus & Opt = EntityStatus.draft;

  @Field(() => Int, { nullable: true, description: 'The published version; null on `draft` and `modified`.' })
  @Property({ nullable: true })
  version?: number | null;

  @Field(() => Int, { nullable: true, description: 'The last version published through a package.' })
  @Property({ nullable: true })
  lastPublishedVersion?: number | null;

  @Field({ description: 'TypeScript source.' })
  @Property({ type: 'text' })
  content!: string;

  @Field(() => String, { nullable: true, description: 'Compiled JavaScript (ES module), read-only.' })
  @Property({ type: 'text', nullable: true })
  compiled?: string | null;

  @Field(() => JSONObjectScalar, {
    description: 'JSON Schema of the component’s props, derived from its `Props` type.',
  })
  @Property({ type: 'json' })
  schema: Record<string, unknown> & Opt = {};

  @Field(() => ID, { nullable: true, description: 'Parent collection; null is the root collection.' })
  @Property({ length: 64, nullable: true })
  collectionId?: string | null;

  @Field(() => JSONObjectScalar, { description: '`author` and `tags`.' })
  @Property({ type: 'json' })
  metadata: Record<string, unknown> & Opt = {};

  @Property({ length: 64 })
  createdById!: string;
}
