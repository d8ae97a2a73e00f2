// A tag (D12): a project-wide label; content and assets carry tag names.
import { Entity, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A label; entries carry tag names in `tags`, and an unknown name creates the tag.' })
@Entity({ tableName: 'tag' })
@Unique({ properties: ['projectId', 'name'] })
export class Tag {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Property({ length: 64 })
  organizationId!: string;

  @Property({ length: 64 })
  projectId!: string;

  @Field(() => String, { description: 'Name, unique in the project.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Display color, e.g. `#ff8800`.' })
  @Property({ length: 32, nullable: true })
  color?: string | null;

  @Field(() => Date, { description: 'When the tag was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the tag last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
