// A project: the scope of content, components, assets and API keys.
import { Entity, Index, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { DEFAULT_LOCALES } from '@cp/graphql';
import { Directive, Field, ID, ObjectType } from 'type-graphql';
import { ProjectLocale } from './project-locale';

@ObjectType({
  description: 'A project inside an organization; content, components, assets and API keys belong to one.',
})
@Directive('@key(fields: "id")')
@Entity({ tableName: 'project' })
@Index({ properties: ['organizationId', 'createdAt'] })
export class Project {
  @Field(() => ID, { description: 'Identifier; the project created at first start-up has the id `default`.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field(() => ID, { description: 'The organization the project belongs to.' })
  @Property({ length: 64 })
  organizationId!: string;

  @Field({ description: 'Display name.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Free-form description.' })
  @Property({ nullable: true, type: 'text' })
  description?: string | null;

  @Field(() => [ProjectLocale], {
    description: 'The locales content is written and read in (see `localized` in content type schemas).',
  })
  @Property({ type: 'json' })
  locales: ProjectLocale[] & Opt = DEFAULT_LOCALES.map((l) => ({ ...l }));

  @Field(() => Date, { description: 'When the project was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the project last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();

  /** Soft delete: a deleted project is invisible and its resources unreachable. */
  @Property({ type: 'timestamptz', nullable: true })
  deletedAt?: Date | null;
}
