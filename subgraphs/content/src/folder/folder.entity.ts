// A folder: places content in a tree; `path` is the names from the root.
import { RevisionedProjectEntity } from '@cp/db';
import { Entity, Property, Unique } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A folder of content entries; folders nest.' })
@Entity({ tableName: 'folder' })
@Unique({ properties: ['projectId', 'name'] })
export class Folder extends RevisionedProjectEntity {
  @Field(() => String, { description: 'Name, unique in the project.' })
  @Property()
  name!: string;

  @Field(() => ID, { nullable: true, description: 'The parent folder; null at the root.' })
  @Property({ length: 64, nullable: true })
  parentId?: string | null;

  @Field(() => String, { description: 'Names from the root, e.g. `/marketing/2026`.' })
  @Property({ type: 'text' })
  path!: string;
}
