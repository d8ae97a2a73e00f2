// Inputs and payloads of webhook operations.
import { OffsetArgs } from '@cp/graphql';
import { ArgsType, Field, InputType, ObjectType } from 'type-graphql';
import { Webhook } from './webhook.entity';

@InputType({ description: 'A new webhook.' })
export class CreateWebhookInput {
  @Field({ description: 'http(s) URL; private and loopback addresses are refused unless the service allows them.' })
  url!: string;

  @Field(() => [String], { nullable: true, description: 'Event types to deliver; empty or absent means all.' })
  eventTypes?: string[];

  @Field({ nullable: true, description: 'What the webhook is for.' })
  description?: string;

  @Field({ nullable: true, description: 'Signing secret (at least 16 characters); generated when absent.' })
  secret?: string;

  @Field({ nullable: true, description: 'Default true.' })
  active?: boolean;
}

@InputType({ description: 'Changes to a webhook: only the members given change.' })
export class UpdateWebhookInput {
  @Field({ nullable: true, description: 'http(s) URL.' })
  url?: string;

  @Field(() => [String], { nullable: true, description: 'Event types to deliver; empty means all.' })
  eventTypes?: string[];

  @Field({ nullable: true, description: 'What the webhook is for.' })
  description?: string;

  @Field({ nullable: true, description: 'Turns delivery off or on.' })
  active?: boolean;
}

@ObjectType({ description: 'A webhook as created: its signing secret is shown this once.' })
export class CreatedWebhook extends Webhook {
  @Field({ description: 'The signing secret. It is not shown again.' })
  secret!: string;
}

@ArgsType()
export class DeliveryListArgs extends OffsetArgs {}
