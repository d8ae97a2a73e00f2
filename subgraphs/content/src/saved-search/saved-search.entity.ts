// A saved search: a named `searchContent` body (plus `search`/`query` strings) that can be executed again.
import { JSONObjectScalar } from '@cp/graphql';
import { RevisionedProjectEntity } from '@cp/db';
import { Entity, Property, Unique } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A named content search, executable by admins and (published content only) by API keys.' })
@Entity({ tableName: 'saved_search' })
@Unique({ properties: ['projectId', 'name'] })
export class SavedSearch extends RevisionedProjectEntity {
  @Field(() => String, { description: 'Name, unique in the project.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'What the search is for.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => JSONObjectScalar, {
    description: 'A `searchContent` body (`filter`, `sort`, `limit`) plus optional `search` and `query` strings.',
  })
  @Property({ type: 'json' })
  query!: Record<string, unknown>;

  @Property({ length: 64 })
  createdById!: string;
}
