// An outbound webhook: events of a project POSTed to a URL, signed with the webhook's secret.
import { Entity, Index, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { ProjectScopedEntity } from '@cp/db';
import { randomUUID } from 'node:crypto';
import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Events of a project delivered to a URL, signed with HMAC-SHA256.' })
@Entity({ tableName: 'webhook' })
@Index({ properties: ['projectId', 'createdAt'] })
export class Webhook extends ProjectScopedEntity {
  @Field({ description: 'http(s) URL the events are POSTed to.' })
  @Property({ type: 'text' })
  url!: string;

  @Field(() => [String], { description: 'Event types delivered (e.g. `content.published`); empty means all.' })
  @Property({ type: 'json' })
  eventTypes: string[] & Opt = [];

  @Field(() => String, { nullable: true, description: 'What the webhook is for.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => Boolean, { description: 'Inactive webhooks receive nothing.' })
  @Property()
  active: boolean & Opt = true;

  /** The signing secret, encrypted with the service key (it must be readable to sign; it is never returned again). */
  @Property({ type: 'text', hidden: true })
  secretCiphertext!: string;

  @Property({ length: 64 })
  createdById!: string;
}

@ObjectType({ description: 'One event delivered (or being delivered) to one webhook: the delivery log.' })
@Entity({ tableName: 'webhook_delivery' })
@Index({ properties: ['webhookId', 'createdAt'] })
export class WebhookDelivery {
  @Field(() => ID, { description: 'Identifier; sent as `X-CP-Delivery`.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field(() => ID, { description: 'The webhook.' })
  @Property({ length: 64 })
  webhookId!: string;

  @Field(() => ID, { description: 'The event delivered.' })
  @Property({ length: 64 })
  eventId!: string;

  @Field(() => String, { description: 'The event type.' })
  @Property()
  eventType!: string;

  @Field(() => String, {
    description:
      '`pending`, `sending`, `retrying`, `delivered`, `failed` (gave up after 24 h) or `cancelled` (its webhook was deactivated).',
  })
  @Property({ length: 16 })
  status: string & Opt = 'pending';

  @Field(() => Int, { description: 'Attempts made so far.' })
  @Property()
  attempts: number & Opt = 0;

  @Field(() => Int, { nullable: true, description: 'HTTP status of the last attempt; null when it got no response.' })
  @Property({ nullable: true })
  responseCode?: number | null;

  @Field(() => Int, { nullable: true, description: 'Duration of the last attempt in milliseconds.' })
  @Property({ nullable: true })
  durationMs?: number | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt failed.' })
  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Field(() => Date, { description: 'When the next attempt is due.' })
  @Property({ type: 'timestamptz' })
  nextAttemptAt: Date & Opt = new Date();

  @Field(() => Date, { nullable: true, description: 'When it was delivered.' })
  @Property({ type: 'timestamptz', nullable: true })
  deliveredAt?: Date | null;

  @Field(() => Date, { description: 'When the delivery was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();
}
