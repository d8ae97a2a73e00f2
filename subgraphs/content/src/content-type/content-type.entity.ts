// A content type: the JSON Schema and component rules that content entries of this type follow.
import { JSONObjectScalar, JSONScalar } from '@cp/graphql';
import { Entity, Enum, Index, Property, Unique, type Opt } from '@mikro-orm/core';
import { RevisionedProjectEntity } from '@cp/db';
import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { EntityStatus } from '@cp/graphql';

@ObjectType({ description: 'The schema and component rules that content entries of this type follow.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'content_type' })
@Unique({ properties: ['projectId', 'name'] })
@Index({ properties: ['projectId', 'createdAt'] })
export class ContentType extends RevisionedProjectEntity {
  @Field({ description: 'Display name, unique in the project.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Structured markdown describing the type.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => EntityStatus, { description: 'Lifecycle status.' })
  @Enum({ items: () => EntityStatus })
  status: EntityStatus & Opt = EntityStatus.draft;

  @Field(() => Int, { nullable: true, description: 'The published version; null on `draft` and `modified`.' })
  @Property({ nullable: true })
  version?: number | null;

  @Field(() => Int, { nullable: true, description: 'The last version ever published.' })
  @Property({ nullable: true })
  lastPublishedVersion?: number | null;

  @Field(() => String, { nullable: true, description: 'Id of the layout component.' })
  @Property({ length: 64, nullable: true })
  layoutComponentId?: string | null;

  @Field(() => JSONScalar, {
    description: 'Allowed components: component ids, or groups `{id, name, componentIds}`.',
  })
  @Property({ type: 'json' })
  componentIdsAllowList: unknown[] & Opt = [];

  @Field(() => String, {
    description: 'Package version pinned when the type was last published (`0.0.0` before any package).',
  })
  @Property({ length: 32 })
  packageVersion: string & Opt = '0.0.0';

  @Field(() => JSONObjectScalar, { description: 'JSON Schema (2020-12) that entries’ `content` must satisfy.' })
  @Property({ type: 'json' })
  schema!: Record<string, unknown>;

  @Field(() => [String], { description: 'Ids of pre-built example entries.' })
  @Property({ type: 'json' })
  templateContentIds: string[] & Opt = [];

  @Field(() => JSONObjectScalar, { description: 'Access-control settings.' })
  @Property({ type: 'json' })
  permissions: Record<string, unknown> & Opt = {};

  @Field(() => JSONObjectScalar, { description: 'Free-form metadata.' })
  @Property({ type: 'json' })
  metadata: Record<string, unknown> & Opt = {};

  @Property({ length: 64 })
  createdById!: string;
}
