// A saved search (D12): a named D2 search body (plus `search`/`query` strings) that can be executed again.
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A named content search, executable by admins and (published content only) by API keys.' })
@Entity({ tableName: 'saved_search' })
@Unique({ properties: ['projectId', 'name'] })
export class SavedSearch {
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

  @Field(() => String, { nullable: true, description: 'What the search is for.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => JSONObjectScalar, { description: 'A D2 search body (`filter`, `sort`, `limit`) plus optional `search` and `query` strings.' })
  @Property({ type: 'json' })
  query!: Record<string, unknown>;

  @Property({ length: 64 })
  createdById!: string;

  @Field(() => Date, { description: 'When the search was saved.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the search last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
