// A scheduled publish or unpublish (entries, content types) or release publish, run once by whichever replica claims it.
import { ProjectScopedEntity } from '@cp/db';
import { Entity, Enum, Index, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum ScheduleStatus {
  pending = 'pending',
  done = 'done',
  failed = 'failed',
  cancelled = 'cancelled',
}

registerEnumType(ScheduleStatus, {
  name: 'ScheduleStatus',
  description: 'Where a schedule stands.',
  valuesConfig: {
    pending: { description: 'Waiting for its time.' },
    done: { description: 'The action ran.' },
    failed: { description: 'The action was refused; `error` says why.' },
    cancelled: { description: 'Cancelled, or its resource was deleted, before it ran.' },
  },
});

export const SCHEDULE_RESOURCE_TYPES = ['content', 'content-types', 'releases'] as const;
export const SCHEDULE_ACTIONS = ['publish', 'unpublish'] as const;
export type ScheduleResourceType = (typeof SCHEDULE_RESOURCE_TYPES)[number];
export type ScheduleAction = (typeof SCHEDULE_ACTIONS)[number];

@ObjectType({ description: 'Why a schedule failed: the error the action met, as the API would have answered it.' })
export class ScheduleError {
  @Field({ description: 'Error code, e.g. `FORBIDDEN` or `INVALID_STATUS_TRANSITION`.' })
  code!: string;

  @Field({ description: 'Human-readable message.' })
  message!: string;
}

@ObjectType({
  description: 'A publish or unpublish that runs at a given instant, with its creator’s rights at that moment.',
})
@Entity({ tableName: 'schedule' })
@Index({ properties: ['projectId', 'at'] })
export class Schedule extends ProjectScopedEntity {
  @Field(() => String, { description: '`content`, `content-types` or `releases`.' })
  @Property({ type: 'string', length: 32 })
  resourceType!: ScheduleResourceType;

  @Field(() => ID, { description: 'The entry, content type or release.' })
  @Property({ length: 64 })
  resourceId!: string;

  @Field(() => String, { description: '`publish` or `unpublish` (a release: `publish`).' })
  @Property({ type: 'string', length: 16 })
  action!: ScheduleAction;

  @Field(() => Date, { description: 'When the action runs (within 5 seconds).' })
  @Property({ type: 'timestamptz' })
  at!: Date;

  @Field(() => ScheduleStatus, { description: 'Where the schedule stands.' })
  @Enum({ items: () => ScheduleStatus })
  status: ScheduleStatus & Opt = ScheduleStatus.pending;

  @Field(() => ScheduleError, { nullable: true, description: 'Why the action was refused, when `status` is `failed`.' })
  @Property({ type: 'json', nullable: true })
  error?: ScheduleError | null;

  @Property({ length: 64 })
  createdById!: string;
}
