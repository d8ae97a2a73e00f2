// The event table: one row per change, written in the same transaction as the change itself.
import { Entity, Index, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { randomUUID } from 'node:crypto';

export const EVENT_ACTIONS = [
  'created',
  'updated',
  'published',
  'unpublished',
  'discarded',
  'rolledBack',
  'restored',
  'migrated',
  'deleted',
] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];
/** The `resourceType` values that have event routes (`…/{resourceType}/events`): the project's resources. */
export const EVENT_ROUTE_RESOURCE_TYPES = [
  'content',
  'content-types',
  'components',
  'packages',
  'assets',
  'tags',
  'saved-searches',
  'folders',
] as const;
/** Every `resourceType` value: the routed ones, then releases and those of the organization and access (no event routes). */
export const EVENT_RESOURCE_TYPES = [
  ...EVENT_ROUTE_RESOURCE_TYPES,
  'releases',
  'api-keys',
  'users',
  'roles',
  'projects',
  'organizations',
] as const;
export type EventResourceType = (typeof EVENT_RESOURCE_TYPES)[number];

@ObjectType('Event', { description: 'A change, recorded in the same transaction as the change itself.' })
@Entity({ tableName: 'event' })
@Index({ properties: ['projectId', 'occurredAt'] })
export class EventRecord {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Field(() => String, { description: '`<resourceType>.<action>`, e.g. `content.published`.' })
  @Property()
  type!: string;

  @Field(() => String, {
    description: 'One of content, content-types, components, packages, assets, tags, folders, saved-searches, …',
  })
  @Property()
  resourceType!: EventResourceType;

  @Field(() => ID, { description: 'The changed resource.' })
  @Property({ length: 64 })
  resourceId!: string;

  @Field(() => ID, { description: 'The organization.' })
  @Property({ length: 64 })
  organizationId!: string;

  /** Null for organization-level resources (users, roles, projects). */
  @Field(() => ID, { nullable: true, description: 'The project; null for organization-level resources.' })
  @Property({ length: 64, nullable: true })
  projectId?: string | null;

  @Field(() => Int, { nullable: true, description: 'The entity version the change produced, when it produced one.' })
  @Property({ nullable: true })
  version?: number | null;

  /** True when the change concerns published state, the only events API keys may see. */
  @Property({ default: false })
  published: boolean & Opt = false;

  /**
   * The database's clock when the event row was inserted (a column default, returned by the insert): one clock for
   * every replica, read after the change's row lock, so a resource's events are in time order too. Unset until the
   * unit of work is flushed.
   */
  @Field(() => Date, { description: 'When the change was made.' })
  @Property({ type: 'timestamptz', defaultRaw: 'clock_timestamp()' })
  occurredAt!: Date & Opt;

  @Field(() => ID, { nullable: true, description: 'The user who made the change.' })
  @Property({ length: 64, nullable: true })
  actorId?: string | null;

  /**
   * Commit-ordered position, assigned after commit by the dispatcher; null until then (invisible to readers). The
   * dispatcher takes unnumbered events in the order of the unmapped column `record_seq`, a sequence the database draws
   * at insert (Migration20261126120000_event_record_order), never in the order of `occurredAt`: a clock can tie or
   * step back.
   */
  @Property({ type: 'bigint', nullable: true })
  position?: string | null;
}
