// The content subgraph: content types, content entries, tags, folders, saved searches, the event log, webhooks.
import { loadJwtSecret, type Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import { ContentType } from './content-type/content-type.entity';
import { ContentTypeVersion } from './content-type/content-type-version.entity';
import { ContentTypeResolver, ContentTypeVersionResolver } from './content-type/content-type.resolver';
import { Content, ContentVersion } from './content/content.entity';
import { ContentResolver, ContentVersionResolver } from './content/content.resolver';
import { EventResolver } from './event/event.resolver';
import { Folder } from './folder/folder.entity';
import { FolderResolver } from './folder/folder.resolver';
import { SavedSearch } from './saved-search/saved-search.entity';
import { SavedSearchResolver } from './saved-search/saved-search.resolver';
import { Tag } from './tag/tag.entity';
import { TagResolver } from './tag/tag.resolver';
import { contentMigrations } from './migrations';
import { SecretBox } from './webhook/secret-box';
import { Webhook, WebhookDelivery } from './webhook/webhook.entity';
import { WebhookResolver } from './webhook/webhook.resolver';
import { WebhookService } from './webhook/webhook.service';
import { WebhookWorker } from './webhook/webhook-worker';

export const contentDatabase: DatabaseModule = {
  name: 'content',
  entities: [ContentType, ContentTypeVersion, Content, ContentVersion, Tag, Folder, SavedSearch, Webhook, WebhookDelivery],
  migrations: contentMigrations,
};

type WebhookConfig = Pick<Config, 'auth' | 'database' | 'webhooks'>;

export function buildContentSubgraph(config: WebhookConfig): Promise<BuiltSubgraph> {
  const service = new WebhookService({ box: new SecretBox(loadJwtSecret(config)), allowPrivateTargets: config.webhooks.allowPrivateTargets });
  return buildFederatedSchema({
    name: 'content',
    resolvers: [ContentTypeResolver, ContentTypeVersionResolver, ContentResolver, ContentVersionResolver, TagResolver, FolderResolver, SavedSearchResolver, EventResolver, WebhookResolver],
    instances: [new WebhookResolver(service)],
  });
}

/** The delivery worker; the gateway runs one per replica (they share the work through the database). */
export function createWebhookWorker(config: WebhookConfig, orm: import('@mikro-orm/postgresql').MikroORM, logger?: import('@cp/config').Logger) {
  return new WebhookWorker({
    orm,
    box: new SecretBox(loadJwtSecret(config)),
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    retryBaseMs: config.webhooks.retryBaseMs,
    logger,
  });
}
