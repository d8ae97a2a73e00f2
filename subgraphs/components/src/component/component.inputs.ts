// Inputs of component operations (PUT changes only the members given).
import { JSONObjectScalar } from '@cp/graphql';
import { Field, ID, InputType } from 'type-graphql';

@InputType({ description: 'A new component.' })
export class CreateComponentInput {
  // Required members are nullable in the schema so that the service answers a missing one with its 400 field map.
  @Field(() => String, { nullable: true, description: 'Name, unique in the project (required).' })
  name?: string | null;

  @Field(() => String, { nullable: true, description: '`view` or `layout` (required).' })
  type?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'TypeScript source exporting `metadata()`, a `Props` type and a default render function (required).',
  })
  content?: string | null;

  @Field(() => ID, { nullable: true, description: 'Parent collection; null is the root collection.' })
  collectionId?: string | null;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: '`tags` (string[]) and other metadata; `author` is set by the service.',
  })
  metadata?: Record<string, unknown>;
}

@InputType({
  description: 'Changes to a component: only the members given change; a published component becomes `modified`.',
})
export class UpdateComponentInput {
  @Field({ nullable: true, description: 'Name, unique in the project.' })
  name?: string;

  @Field({ nullable: true, description: '`view` or `layout`.' })
  type?: string;

  @Field({ nullable: true, description: 'TypeScript source; recompiled on change.' })
  content?: string;

  @Field(() => ID, { nullable: true, description: 'Parent collection; null is the root collection.' })
  collectionId?: string | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Metadata (replaces the object; `author` is kept).' })
  metadata?: Record<string, unknown>;
}
