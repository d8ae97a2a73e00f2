// Inputs of content type operations (creation body; PUT changes only the members given).
import { CursorArgs, JSONObjectScalar, JSONScalar } from '@cp/graphql';
import { ArgsType, Field, ID, InputType } from 'type-graphql';

@InputType({ description: 'A new content type.' })
export class CreateContentTypeInput {
  @Field({ description: 'Display name, unique in the project.' })
  name!: string;

  @Field({ nullable: true, description: 'Structured markdown.' })
  description?: string;

  @Field(() => JSONObjectScalar, { description: 'JSON Schema (2020-12) for entries’ `content`.' })
  schema!: Record<string, unknown>;

  @Field(() => ID, { nullable: true, description: 'Id of the layout component.' })
  layoutComponentId?: string;

  @Field(() => JSONScalar, { nullable: true, description: 'Component ids, or groups `{id, name, componentIds}`.' })
  componentIdsAllowList?: unknown[];

  @Field(() => [ID], { nullable: true, description: 'Ids of pre-built example entries.' })
  templateContentIds?: string[];

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Access-control settings.' })
  permissions?: Record<string, unknown>;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Free-form metadata.' })
  metadata?: Record<string, unknown>;
}

@InputType({ description: 'Changes to a content type: only the members given change.' })
export class UpdateContentTypeInput {
  @Field({ nullable: true, description: 'Display name, unique in the project.' })
  name?: string;

  @Field({ nullable: true, description: 'Structured markdown.' })
  description?: string;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'JSON Schema (2020-12) for entries’ `content`.' })
  schema?: Record<string, unknown>;

  @Field(() => ID, { nullable: true, description: 'Id of the layout component.' })
  layoutComponentId?: string;

  @Field(() => JSONScalar, { nullable: true, description: 'Component ids, or groups `{id, name, componentIds}`.' })
  componentIdsAllowList?: unknown[];

  @Field(() => [ID], { nullable: true, description: 'Ids of pre-built example entries.' })
  templateContentIds?: string[];

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Access-control settings.' })
  permissions?: Record<string, unknown>;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Free-form metadata.' })
  metadata?: Record<string, unknown>;
}

@ArgsType()
export class ContentTypeListArgs extends CursorArgs {}

@InputType({ description: 'A direct status override: `draft`, `published` or `deleted`.' })
export class ContentTypeStatusInput {
  @Field({ description: '`draft`, `published` or `deleted`; other values give INVALID_STATUS.' })
  status!: string;
}
