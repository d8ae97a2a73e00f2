// A package: the project's component library at one moment, with a semantic version.
import { Entity, Index, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A component as pinned by a package.' })
export class PackageComponent {
  @Field(() => ID, { description: 'The component.' })
  id!: string;

  @Field({ description: 'Its name (content refers to components by name).' })
  name!: string;

  @Field(() => Int, { description: 'Its version in this package.' })
  version!: number;
}

@ObjectType({ description: 'A published set of components; content types pin one by its semantic version.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'package' })
@Unique({ properties: ['projectId', 'version'] })
@Index({ properties: ['projectId', 'createdAt'] })
export class Package {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field(() => ID, { description: 'The organization the package belongs to.' })
  @Property({ length: 64 })
  organizationId!: string;

  @Field(() => ID, { description: 'The project the package belongs to.' })
  @Property({ length: 64 })
  projectId!: string;

  @Field({
    description: 'Semantic version: `1.0.0` first, then major/minor/patch by how component schemas changed.',
  })
  @Property({ length: 32 })
  version!: string;

  @Field(() => String, { nullable: true, description: 'What changed, in the publisher’s words.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => [PackageComponent], {
    description: 'Every component of the library at this moment, at its pinned version.',
  })
  @Property({ type: 'json' })
  components!: PackageComponent[];

  @Property({ length: 64 })
  createdById!: string;

  @Field(() => Date, { description: 'When the package was published.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();
}
