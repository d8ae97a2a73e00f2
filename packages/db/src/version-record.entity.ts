// What every immutable version row has: its project, its number, who published it and when.
import { PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Base of published version rows; never exposed on its own.' })
export abstract class VersionRecord {
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Property({ length: 64 })
  organizationId!: string;

  @Property({ length: 64 })
  projectId!: string;

  @Field(() => Int, { description: 'Version number, consecutive from 1.' })
  @Property()
  version!: number;

  @Property({ length: 64 })
  createdById!: string;

  @Field(() => Date, { description: 'When the version was published.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();
}
