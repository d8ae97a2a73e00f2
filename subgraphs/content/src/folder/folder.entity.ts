// A folder (D12): places content in a tree; `path` is the names from the root.
import { Entity, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A folder of content entries; folders nest.' })
@Entity({ tableName: 'folder' })
@Unique({ properties: ['projectId', 'name'] })
export class Folder {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Property({ length: 64 })
  organizationId!: string;

  @Property({ length: 64 })
  projectId!: string;

  @Field(() => String, { description: 'Name, unique in the project (D11).' })
  @Property()
  name!: string;

  @Field(() => ID, { nullable: true, description: 'The parent folder; null at the root.' })
  @Property({ length: 64, nullable: true })
  parentId?: string | null;

  @Field(() => String, { description: 'Names from the root, e.g. `/marketing/2026`.' })
  @Property({ type: 'text' })
  path!: string;

  @Field(() => Date, { description: 'When the folder was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the folder last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
