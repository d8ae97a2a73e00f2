// Inputs of bulk actions on content entries.
import { Field, ID, InputType } from 'type-graphql';

@InputType({ description: 'One action applied to each of up to 100 entries.' })
export class BulkContentInput {
  @Field(() => String, {
    nullable: true,
    description: '`publish`, `unpublish`, `delete`, `addTags`, `removeTags` or `move` (required).',
  })
  action?: string | null;

  @Field(() => [ID], { nullable: true, description: '1 to 100 entries, applied in this order (required).' })
  ids?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'The tags to add or remove (`addTags`, `removeTags`).' })
  tags?: string[] | null;

  @Field(() => ID, { nullable: true, description: 'The folder to move to; null: out of any folder (`move`).' })
  folderId?: string | null;
}
