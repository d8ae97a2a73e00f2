// GraphQL shapes of sync: its arguments and its page.
import { ArgsType, Field, ID, ObjectType } from 'type-graphql';
import { Content } from '../content/content.entity';

@ArgsType()
export class SyncArgs {
  @Field(() => Boolean, { nullable: true, description: 'Start a sync: `true` answers the first page of a snapshot.' })
  initial?: boolean;

  @Field(() => ID, { nullable: true, description: 'With `initial`: sync the entries of this content type only.' })
  typeId?: string;

  @Field(() => String, {
    nullable: true,
    description: 'With `initial`: sync the entries whose `metadata.locale` is this.',
  })
  locale?: string;

  @Field(() => String, { nullable: true, description: 'The `nextPageToken` of the previous page: its next page.' })
  pageToken?: string;

  @Field(() => String, {
    nullable: true,
    description: 'The `nextSyncToken` of an earlier sync: what changed since (valid for at least 30 days).',
  })
  syncToken?: string;
}

@ObjectType({
  description: 'An entry that left what the key sees (unpublished, deleted, or out of the sync’s filter).',
})
export class SyncDeletion {
  @Field(() => ID, { description: 'The entry.' })
  id!: string;

  @Field(() => Date, { description: 'When it left.' })
  deletedAt!: Date;
}

@ObjectType({
  description:
    'A page of a sync. Apply `items` (upsert by id) and `deleted` (remove by id), then follow `nextPageToken`; the last page has `nextSyncToken` instead, for the next delta.',
})
export class SyncPage {
  @Field(() => [Content], {
    description: 'Entries as the list answers them (API keys: published; preview keys: working copies), each once.',
  })
  items!: Content[];

  @Field(() => [SyncDeletion], { description: 'Entries to remove; empty on an initial sync.' })
  deleted!: SyncDeletion[];

  @Field(() => String, { nullable: true, description: 'The next page of this sync; null on the last page.' })
  nextPageToken?: string;

  @Field(() => String, {
    nullable: true,
    description: 'On the last page: pass it as `syncToken` to get later changes.',
  })
  nextSyncToken?: string;
}
