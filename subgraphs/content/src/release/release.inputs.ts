// Inputs of release operations.
import { CursorArgs } from '@cp/graphql';
import { ArgsType, Field, ID, InputType } from 'type-graphql';
import { ReleaseStatus } from './release.entity';

@InputType({ description: 'One action of a release.' })
export class ReleaseItemInput {
  @Field(() => String, { nullable: true, description: '`content` or `content-types` (required).' })
  resourceType?: string | null;

  @Field(() => ID, { nullable: true, description: 'The entry or content type (required).' })
  resourceId?: string | null;

  @Field(() => String, { nullable: true, description: '`publish` or `unpublish` (required).' })
  action?: string | null;
}

@InputType({ description: 'A release, or changes to one (only the members given change).' })
export class ReleaseInput {
  @Field(() => String, { nullable: true, description: 'Name (required on create).' })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'What the release is for.' })
  description?: string | null;

  @Field(() => [ReleaseItemInput], {
    nullable: true,
    description: 'The actions, at most 1,000, one per resource; replaces the whole list.',
  })
  items?: ReleaseItemInput[] | null;
}

@ArgsType()
export class ReleaseListArgs extends CursorArgs {
  @Field(() => ReleaseStatus, { nullable: true, description: 'Only releases in this status.' })
  status?: ReleaseStatus;
}
