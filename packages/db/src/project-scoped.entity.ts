// What every project-scoped record has: an id, its organization and project, and its timestamps.
import { PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Base of project-scoped records; never exposed on its own.' })
export abstract class ProjectScopedEntity {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field(() => ID, { description: 'The organization it belongs to.' })
  @Property({ length: 64 })
  organizationId!: string;

  @Field(() => ID, { description: 'The project it belongs to.' })
  @Property({ length: 64 })
  projectId!: string;

  @Field(() => Date, { description: 'When it was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When it last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
