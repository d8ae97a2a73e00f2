// A tag (D12): a project-wide label; content and assets carry tag names.
import { ProjectScopedEntity } from '@cp/db';
import { Entity, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType, Int } from 'type-graphql';

@ObjectType({ description: 'A label; entries carry tag names in `tags`, and an unknown name creates the tag.' })
@Entity({ tableName: 'tag' })
@Unique({ properties: ['projectId', 'name'] })
export class Tag extends ProjectScopedEntity {
  @Field(() => Int, { description: 'Grows by one with every change (D16); send it back as `If-Match` or `expectedRevision`.' })
  @Property({ version: true, default: 1 })
  revision!: number & Opt;

  @Field(() => String, { description: 'Name, unique in the project.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Display color, e.g. `#ff8800`.' })
  @Property({ length: 32, nullable: true })
  color?: string | null;
}
