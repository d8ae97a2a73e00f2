// The event table (D9): one row per change, written in the same transaction as the change itself.
import { Entity, Index, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';

export const EVENT_ACTIONS = ['created', 'updated', 'published', 'unpublished', 'discarded', 'rolledBack', 'restored', 'migrated', 'deleted'] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];
/** D9's `resourceType` values, as they appear in event routes. */
export type EventResourceType =
  | 'content'
  | 'content-types'
  | 'components'
  | 'packages'
  | 'assets'
  | 'tags'
  | 'folders'
  | 'saved-searches'
  | 'api-keys'
  | 'users'
  | 'roles'
  | 'projects'
  | 'organizations';

@Entity({ tableName: 'event' })
@Index({ properties: ['projectId', 'occurredAt'] })
export class EventRecord {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** `<resourceType>.<action>`, e.g. `content.published`. */
  @Property()
  type!: string;

  @Property()
  resourceType!: EventResourceType;

  @Property({ length: 64 })
  resourceId!: string;

  @Property({ length: 64 })
  organizationId!: string;

  /** Null for organization-level resources (users, roles, projects). */
  @Property({ length: 64, nullable: true })
  projectId?: string | null;

  /** The entity version the change produced, when it produced one. */
  @Property({ nullable: true })
  version?: number | null;

  /** True when the change concerns published state, the only events API keys may see (D9). */
  @Property({ default: false })
  published: boolean & Opt = false;

  @Property({ type: 'timestamptz' })
  occurredAt: Date & Opt = new Date();

  @Property({ length: 64, nullable: true })
  actorId?: string | null;
}
