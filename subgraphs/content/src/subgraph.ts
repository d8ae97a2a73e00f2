// The content subgraph: content types, content entries, tags, folders, saved searches, the event log, webhooks.
import { loadJwtSecret, type Config, type Logger } from '@cp/config';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ContentService } from './content/content.service';
import { createEmbedder, type Embedder } from './semantic/embedder';
import { EmbeddingIndexer } from './semantic/indexer';
import { SemanticSearch } from './semantic/semantic-search';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import { gaugeFrom } from '@cp/metrics';
import type { SubgraphModule } from '@cp/subgraph-server';
import { contentRoutes } from './routes';
import { ContentType } from './content-type/content-type.entity';
import { ContentTypeVersion } from './content-type/content-type-version.entity';
import { ContentTypeResolver, ContentTypeVersionResolver } from './content-type/content-type.resolver';
import { Content, ContentVersion } from './content/content.entity';
import { ContentResolver, ContentVersionResolver, ContentVersionSnapshotResolver } from './content/content.resolver';
import { PublishedContent } from './content/published-content.entity';
import { EventResolver } from './event/event.resolver';
import { Folder } from './folder/folder.entity';
import { FolderResolver } from './folder/folder.resolver';
import { SavedSearch } from './saved-search/saved-search.entity';
import { SavedSearchResolver } from './saved-search/saved-search.resolver';
import { Schedule } from './schedule/schedule.entity';
import { ScheduleResolver } from './schedule/schedule.resolver';
import { ScheduleWorker } from './schedule/schedule-worker';
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
  entities: [ContentType, ContentTypeVersion, Content, ContentVersion, PublishedContent, Tag, Folder, SavedSearch, Schedule, Webhook, WebhookDelivery],
  migrations: contentMigrations,
};

type ContentConfig = Pick<Config, 'auth' | 'database' | 'webhooks' | 'embeddings'>;

let embedder: Embedder | undefined;

/** One embedding model per process, loaded on first use, shared by queries and the indexer. */
function sharedEmbedder(config: ContentConfig): Embedder | undefined {
  if (!config.embeddings.enabled) return undefined;
  return (embedder ??= createEmbedder({ apiKey: config.embeddings.apiKey, idleMs: config.embeddings.idleSeconds * 1000 }));
}

export function buildContentSubgraph(config: ContentConfig): Promise<BuiltSubgraph> {
  const webhooks = new WebhookService({ box: new SecretBox(loadJwtSecret(config)), allowPrivateTargets: config.webhooks.allowPrivateTargets });
  const shared = sharedEmbedder(config);
  const content = new ContentService(shared && new SemanticSearch(shared));
  return buildFederatedSchema({
    name: 'content',
    resolvers: [ContentTypeResolver, ContentTypeVersionResolver, ContentResolver, ContentVersionResolver, ContentVersionSnapshotResolver, TagResolver, FolderResolver, SavedSearchResolver, ScheduleResolver, EventResolver, WebhookResolver],
    instances: [new WebhookResolver(webhooks), new ContentResolver(content), new SavedSearchResolver(content)],
  });
}

/** Keeps embeddings current off the request path (one per replica; any replica may do the work). */
export function createEmbeddingIndexer(config: ContentConfig, orm: MikroORM, logger?: Logger): EmbeddingIndexer | undefined {
  const shared = sharedEmbedder(config);
  return shared && new EmbeddingIndexer(orm, shared, logger);
}

/** The delivery worker; the gateway runs one per replica (they share the work through the database). */
export function createWebhookWorker(config: ContentConfig, orm: MikroORM, logger?: Logger) {
  return new WebhookWorker({
    orm,
    box: new SecretBox(loadJwtSecret(config)),
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    retryBaseMs: config.webhooks.retryBaseMs,
    logger,
  });
}

/** The content subgraph as its hosts run it: schema, tables, REST routes, the webhook worker and the embedding indexer. */
export const contentModule: SubgraphModule = {
  name: 'content',
  database: contentDatabase,
  routes: contentRoutes,
  build: ({ config }) => buildContentSubgraph(config),
  workers({ config, orm, logger }) {
    const embeddings = createEmbeddingIndexer(config, orm, logger);
    return [createWebhookWorker(config, orm, logger), ...(embeddings ? [embeddings] : []), new ScheduleWorker({ orm, logger })];
  },
  metrics({ orm }) {
    const count = async (where: string) => {
      const [row] = await orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as "n" from "webhook_delivery" where ${where}`);
      return Number(row?.n ?? 0);
    };
    gaugeFrom('cp_webhook_queue_depth', 'Webhook deliveries pending, retrying or being sent.', () => count(`"status" in ('pending', 'retrying', 'sending')`));
    gaugeFrom('cp_webhook_deliveries_failed', 'Webhook deliveries that gave up after 24 hours of retries.', () => count(`"status" = 'failed'`));
  },
};
