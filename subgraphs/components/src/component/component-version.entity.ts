// An immutable published version of a component, written when a package publishes it (never updated or deleted).
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A published, immutable version of a component.' })
@Entity({ tableName: 'component_version' })
@Unique({ properties: ['componentId', 'version'] })
export class ComponentVersion {
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Property({ length: 64 })
  componentId!: string;

  @Property({ length: 64 })
  organizationId!: string;

  @Property({ length: 64 })
  projectId!: string;

  @Field(() => Int, { description: 'Version number, consecutive from 1.' })
  @Property()
  version!: number;

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

  @Property({ length: 64 })
  createdById!: string;

  @Field(() => Date, { description: 'When the version was published.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();
}
