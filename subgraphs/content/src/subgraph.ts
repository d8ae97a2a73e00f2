// The content subgraph: content types, content entries, tags, folders, saved searches, releases, the event log, webhooks.
import type { Config } from '@cp/config';
import { ContentService } from './content/content.service';
import { createEmbedder, type Embedder } from './semantic/embedder';
import { EmbeddingIndexer } from './semantic/indexer';
import { SemanticSearch } from './semantic/semantic-search';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import { gaugeFrom } from '@cp/metrics';
import type { SubgraphModule } from '@cp/host';
import { contentRoutes } from './routes';
import { createContentTransfer } from './transfer';
import { ContentType } from './content-type/content-type.entity';
import { ContentTypeVersion } from './content-type/content-type-version.entity';
import { ContentTypeResolver, ContentTypeVersionResolver } from './content-type/content-type.resolver';
import { Content, ContentVersion } from './content/content.entity';
import {
  ContentListIncludesResolver,
  ContentResolver,
  ContentSearchIncludesResolver,
  ContentVersionResolver,
  ContentVersionSnapshotResolver,
} from './content/content.resolver';
import { PublishedContent } from './content/published-content.entity';
import { BulkContentResolver } from './bulk/bulk.resolver';
import { BulkContentService } from './bulk/bulk.service';
import { Release } from './release/release.entity';
import { ReleaseResolver } from './release/release.resolver';
import { ReleaseService } from './release/release.service';
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
import { SyncResolver } from './sync/sync.resolver';
import { SyncService } from './sync/sync.service';
import { SyncTokens } from './sync/sync-token';
import { SecretBox } from './webhook/secret-box';
import { Webhook, WebhookDelivery } from './webhook/webhook.entity';
import { WebhookResolver } from './webhook/webhook.resolver';
import { WebhookService } from './webhook/webhook.service';
import { WebhookWorker } from './webhook/webhook-worker';

export const contentDatabase: DatabaseModule = {
  name: 'content',
  entities: [
    ContentType,
    ContentTypeVersion,
    Content,
    ContentVersion,
    PublishedContent,
    Tag,
    Folder,
    SavedSearch,
    Schedule,
    Release,
    Webhook,
    WebhookDelivery,
  ],
  migrations: contentMigrations,
};

type ContentConfig = Pick<Config, 'webhooks' | 'embeddings'>;

/** The embedding model (undefined with EMBEDDINGS=off): loaded on first use, unloaded when idle. */
export function contentEmbedder(config: ContentConfig): Embedder | undefined {
  if (!config.embeddings.enabled) return undefined;
  return createEmbedder({ apiKey: config.embeddings.apiKey, idleMs: config.embeddings.idleSeconds * 1000 });
}

/** `secret` keys the webhook secrets' box and signs sync tokens; `embedder` answers semantic searches (none: they are refused). */
export function buildContentSubgraph(options: {
  config: ContentConfig;
  secret: Uint8Array;
  embedder?: Embedder;
}): Promise<BuiltSubgraph> {
  const { config, secret, embedder } = options;
  const { allowPrivateTargets } = config.webhooks;
  const webhooks = new WebhookService({ box: new SecretBox(secret), allowPrivateTargets });
  const content = new ContentService(embedder && new SemanticSearch(embedder));
  return buildFederatedSchema({
    name: 'content',
    resolvers: [
      ContentTypeResolver,
      ContentTypeVersionResolver,
      ContentResolver,
      ContentListIncludesResolver,
      ContentSearchIncludesResolver,
      ContentVersionResolver,
      ContentVersionSnapshotResolver,
      TagResolver,
      FolderResolver,
      SavedSearchResolver,
      ScheduleResolver,
      ReleaseResolver,
      BulkContentResolver,
      EventResolver,
      WebhookResolver,
      SyncResolver,
    ],
    instances: [
      new WebhookResolver(webhooks),
      new ContentResolver(content),
      new ContentListIncludesResolver(content),
      new ContentSearchIncludesResolver(content),
      new SavedSearchResolver(content),
      new ReleaseResolver(new ReleaseService(content)),
      new BulkContentResolver(new BulkContentService(content)),
      new SyncResolver(new SyncService(new SyncTokens(secret))),
    ],
  });
}

/**
 * The content subgraph as its hosts run it: schema, tables, REST routes, the webhook worker (one per replica; they
 * share the work through the database), the embedding indexer and the schedule worker. One embedding model per
 * instance, shared by queries and the indexer.
 */
export function createContentModule(): SubgraphModule {
  let embedder: Embedder | undefined;
  const shared = (config: ContentConfig) => (embedder ??= contentEmbedder(config));
  return {
    name: 'content',
    database: contentDatabase,
    routes: contentRoutes,
    restShape: {
      /** An entry's references and referrers are GraphQL's to follow; REST has its own `…/referenced-by` route. */
      graphqlOnly: [
        'Content.references',
        'Content.referencedBy',
        'ResolvedContent.references',
        'ResolvedContent.referencedBy',
        'Content.referencedAssets',
        'ResolvedContent.referencedAssets',
      ],
    },
    build: ({ config, secret }) => buildContentSubgraph({ config, secret, embedder: shared(config) }),
    transfer: ({ secret }) => createContentTransfer(secret),
    workers({ config, secret, orm, logger }) {
      const box = new SecretBox(secret);
      const webhooks = new WebhookWorker({ orm, box, ...config.webhooks, logger });
      const model = shared(config);
      const embeddings = model ? [new EmbeddingIndexer(orm, model, logger)] : [];
      return [webhooks, ...embeddings, new ScheduleWorker({ orm, logger })];
    },
    metrics({ orm }) {
      const count = async (where: string) => {
        const [row] = await orm.em
          .getConnection()
          .execute<{ n: string }[]>(`select count(*) as "n" from "webhook_delivery" where ${where}`);
        return Number(row?.n ?? 0);
      };
      gaugeFrom('cp_webhook_queue_depth', 'Webhook deliveries pending, retrying or being sent.', () =>
        count(`"status" in ('pending', 'retrying', 'sending')`),
      );
      gaugeFrom('cp_webhook_deliveries_failed', 'Webhook deliveries that gave up after 24 hours of retries.', () =>
        count(`"status" = 'failed'`),
      );
    },
  };
}

export const contentModule = createContentModule();
