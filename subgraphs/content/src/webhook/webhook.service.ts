// Webhook rules: CRUD with an SSRF-checked URL and an encrypted secret, the delivery log, manual redelivery.
import { AppError, NotFoundError, ValidationFailedError } from '@cp/errors';
import { offsetPage, type OffsetArgs, type ProjectScope, distinctNames } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import type { SecretBox } from './secret-box';
import { assertDeliverable } from './target-guard';
import { Webhook, WebhookDelivery } from './webhook.entity';
import type { CreatedWebhook, CreateWebhookInput, UpdateWebhookInput } from './webhook.inputs';

export interface WebhookOptions {
  box: SecretBox;
  allowPrivateTargets: boolean;
}

export class WebhookService {
  constructor(private readonly options: WebhookOptions) {}

  list(em: EntityManager, scope: ProjectScope, page: OffsetArgs) {
    return offsetPage(em, Webhook, { ...scope }, page);
  }

  async get(em: EntityManager, scope: ProjectScope, id: string): Promise<Webhook> {
    const webhook = await em.findOne(Webhook, { id, ...scope });
    if (!webhook) throw new NotFoundError('Webhook', id);
    return webhook;
  }

  async create(
    em: EntityManager,
    scope: ProjectScope,
    input: CreateWebhookInput,
    actorId: string,
  ): Promise<CreatedWebhook> {
    await assertDeliverable(input.url, this.options.allowPrivateTargets);
    if (input.secret !== undefined && input.secret.length < 16) {
      throw new ValidationFailedError([{ path: '/secret', message: 'must be at least 16 characters' }]);
    }
    const secret = input.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
    const webhook = em.create(Webhook, {
      ...scope,
      url: input.url,
      eventTypes: distinctNames(input.eventTypes),
      description: input.description ?? null,
      active: input.active ?? true,
      secretCiphertext: this.options.box.seal(secret),
      createdById: actorId,
    });
    await em.flush();
    return Object.assign(Object.create(Webhook.prototype), webhook, { secret }) as CreatedWebhook;
  }

  async update(em: EntityManager, scope: ProjectScope, id: string, input: UpdateWebhookInput): Promise<Webhook> {
    if (input.url !== undefined) await assertDeliverable(input.url, this.options.allowPrivateTargets);
    const webhook = await this.get(em, scope, id);
    if (input.url !== undefined) webhook.url = input.url;
    if (input.eventTypes !== undefined) webhook.eventTypes = distinctNames(input.eventTypes);
    if (input.description !== undefined) webhook.description = input.description;
    const deactivated = input.active === false && webhook.active;
    if (input.active !== undefined) webhook.active = input.active;
    await em.transactional(async (tx) => {
      tx.persist(webhook);
      // A deactivated webhook stops retrying; what it had queued is cancelled, visibly, in its delivery log.
      if (deactivated) {
        await tx.nativeUpdate(
          WebhookDelivery,
          { webhookId: id, status: { $in: ['pending', 'retrying', 'sending'] } },
          { status: 'cancelled', error: 'webhook deactivated' },
        );
      }
    });
    return webhook;
  }

  /** Deletes the webhook and its log; deliveries in flight finish or are dropped with it. */
  async delete(em: EntityManager, scope: ProjectScope, id: string): Promise<Webhook> {
    const webhook = await this.get(em, scope, id);
    await em.transactional(async (tx) => {
      await tx.nativeDelete(WebhookDelivery, { webhookId: id });
      tx.remove(tx.merge(webhook));
    });
    return webhook;
  }

  async deliveries(em: EntityManager, scope: ProjectScope, id: string, page: OffsetArgs) {
    await this.get(em, scope, id);
    return offsetPage(em, WebhookDelivery, { webhookId: id }, page, { createdAt: 'desc', id: 'desc' });
  }

  /** Queues a delivery again now, whatever its state; its attempt count restarts. */
  async redeliver(em: EntityManager, scope: ProjectScope, id: string, deliveryId: string): Promise<WebhookDelivery> {
    await this.get(em, scope, id);
    const delivery = await em.findOne(WebhookDelivery, { id: deliveryId, webhookId: id });
    if (!delivery) throw new NotFoundError('WebhookDelivery', deliveryId);
    if (delivery.status === 'sending') throw new AppError('CONFLICT', 'The delivery is being sent right now.');
    Object.assign(delivery, {
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(),
      createdAt: new Date(),
      error: null,
    });
    await em.flush();
    return delivery;
  }
}
