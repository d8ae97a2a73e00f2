// Inputs of schedule operations.
import { CursorArgs } from '@cp/graphql';
import { ArgsType, Field, ID, InputType } from 'type-graphql';
import { ScheduleStatus } from './schedule.entity';

@InputType({ description: 'A new schedule.' })
export class CreateScheduleInput {
  @Field(() => String, { nullable: true, description: '`content`, `content-types` or `releases` (required).' })
  resourceType?: string | null;

  @Field(() => ID, { nullable: true, description: 'The entry, content type or release (required).' })
  resourceId?: string | null;

  @Field(() => String, { nullable: true, description: '`publish` or `unpublish` (required; a release: `publish`).' })
  action?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'ISO-8601 instant, in the future and at most one year ahead (required).',
  })
  at?: string | null;
}

@ArgsType()
export class ScheduleListArgs extends CursorArgs {
  @Field(() => ID, { nullable: true, description: 'Only schedules of this resource.' })
  resourceId?: string;

  @Field(() => String, { nullable: true, description: 'Only `content`, `content-types` or `releases` schedules.' })
  resourceType?: string;

  @Field(() => ScheduleStatus, { nullable: true, description: 'Only schedules in this status.' })
  status?: ScheduleStatus;
}
