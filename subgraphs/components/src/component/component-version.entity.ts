// An immutable published version of a component, written when a package publishes it (never updated or deleted).
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, Property, Unique } from '@mikro-orm/core';
import { VersionRecord } from '@cp/db';
import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A published, immutable version of a component.' })
@Entity({ tableName: 'component_version' })
@Unique({ properties: ['componentId', 'version'] })
export class ComponentVersion extends VersionRecord {
  @Property({ length: 64 })
  componentId!: string;

  @Field({ description: 'Name at this version.' })
  @Property()
  name!: string;

  @Field({ description: '`view` or `layout`.' })
  @Property({ length: 16 })
  type!: 'view' | 'layout';

  @Field(() => String, { nullable: true, description: 'Title from `metadata()` at this version.' })
  @Property({ nullable: true })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'Description from `metadata()` at this version.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field({ description: 'TypeScript source at this version.' })
  @Property({ type: 'text' })
  content!: string;

  @Field({ description: 'Compiled ES module at this version.' })
  @Property({ type: 'text' })
  compiled!: string;

  @Field(() => JSONObjectScalar, { description: 'Props JSON Schema at this version.' })
  @Property({ type: 'json' })
  schema!: Record<string, unknown>;

  /** Metadata at this version (null for versions published before it was kept). */
  @Property({ type: 'json', nullable: true })
  metadata?: Record<string, unknown> | null;

  /** Collection at this version (null: the root, or not kept; see `metadata`). */
  @Property({ length: 64, nullable: true })
  collectionId?: string | null;
}
