// A tag: a project-wide label; content and assets carry tag names.
import { RevisionedProjectEntity } from '@cp/db';
import { Entity, Property, Unique } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A label; entries carry tag names in `tags`, and an unknown name creates the tag.' })
@Entity({ tableName: 'tag' })
@Unique({ properties: ['projectId', 'name'] })
export class Tag extends RevisionedProjectEntity {
  @Field(() => String, { description: 'Name, unique in the project.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Display color, e.g. `#ff8800`.' })
  @Property({ length: 32, nullable: true })
  color?: string | null;
}
