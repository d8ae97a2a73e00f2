// GraphQL surface of webhooks (admin only; project settings → `projects.update`).
import { authorizeProject, OffsetArgs, OffsetList, ProjectScopeArgs, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Webhook, WebhookDelivery } from './webhook.entity';
import { CreatedWebhook, CreateWebhookInput, UpdateWebhookInput } from './webhook.inputs';
import type { WebhookService } from './webhook.service';

const WebhookList = OffsetList(Webhook, 'WebhookList');
const DeliveryList = OffsetList(WebhookDelivery, 'WebhookDeliveryList');
const idArg = { description: 'The webhook.' };

@Resolver(() => Webhook)
export class WebhookResolver {
  constructor(private readonly service: WebhookService) {}

  @Query(() => WebhookList, { description: 'Webhooks of a project.' })
  async webhooks(@Args() scope: ProjectScopeArgs, @Args() page: OffsetArgs, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'projects', 'read');
    return this.service.list(ctx.em, scope, page);
  }

  @Query(() => Webhook, { description: 'One webhook (never its secret).' })
  async webhook(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'projects', 'read');
    return this.service.get(ctx.em, scope, id);
  }

  @Query(() => DeliveryList, { description: 'The delivery log of a webhook, newest first.' })
  async webhookDeliveries(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() page: OffsetArgs,
    @Ctx() ctx: Context,
  ) {
    await authorizeProject(ctx, scope, 'projects', 'read');
    return this.service.deliveries(ctx.em, scope, id, page);
  }

  @Mutation(() => CreatedWebhook, {
    description: 'Creates a webhook; the answer carries its signing secret, shown once.',
  })
  async createWebhook(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateWebhookInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'projects', 'update');
    return this.service.create(ctx.em, scope, input, user.userId);
  }

  @Mutation(() => Webhook, { description: 'Changes the members given.' })
  async updateWebhook(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateWebhookInput,
    @Ctx() ctx: Context,
  ) {
    await authorizeProject(ctx, scope, 'projects', 'update');
    return this.service.update(ctx.em, scope, id, input);
  }

  @Mutation(() => Webhook, { description: 'Deletes a webhook and its delivery log.' })
  async deleteWebhook(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'projects', 'update');
    return this.service.delete(ctx.em, scope, id);
  }

  @Mutation(() => WebhookDelivery, { description: 'Sends a logged delivery again now.' })
  async redeliverWebhook(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('deliveryId', () => ID, { description: 'The delivery.' }) deliveryId: string,
    @Ctx() ctx: Context,
  ) {
    await authorizeProject(ctx, scope, 'projects', 'update');
    return this.service.redeliver(ctx.em, scope, id, deliveryId);
  }
}
