// Migrations of the content subgraph, in order.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261124130006_name_trigram } from './Migration20261124130006_name_trigram';
import { Migration20261129130000_published_refresh_by_index } from './Migration20261129130000_published_refresh_by_index';
import { Migration20261124190000_name_trigram_no_pending } from './Migration20261124190000_name_trigram_no_pending';
import { Migration20261124130005_schedule } from './Migration20261124130005_schedule';
import { Migration20261124130002_revision } from './Migration20261124130002_revision';
import { Migration20261122000200_content_type } from './Migration20261122000200_content_type';
import { Migration20261122000800_webhooks } from './Migration20261122000800_webhooks';
import { Migration20261122000900_versions } from './Migration20261122000900_versions';
import { Migration20261122001000_tags_folders_searches } from './Migration20261122001000_tags_folders_searches';
import { Migration20261122001100_content_embedding } from './Migration20261122001100_content_embedding';
import { Migration20261122001200_immutable_versions } from './Migration20261122001200_immutable_versions';
import { Migration20261125120000_published_content } from './Migration20261125120000_published_content';
import { Migration20261128120000_published_document } from './Migration20261128120000_published_document';
import { Migration20261128150000_content_links } from './Migration20261128150000_content_links';
import { Migration20261128170000_sync_indexes } from './Migration20261128170000_sync_indexes';
import { Migration20261128180000_release } from './Migration20261128180000_release';
import { Migration20261128210000_published_refresh } from './Migration20261128210000_published_refresh';
import { Migration20261129000000_published_refresh_many } from './Migration20261129000000_published_refresh_many';
import { Migration20261129050000_embedding_text_hash } from './Migration20261129050000_embedding_text_hash';

export const contentMigrations: MigrationObject[] = [
  { name: 'Migration20261122000200_content_type', class: Migration20261122000200_content_type },
  { name: 'Migration20261122000800_webhooks', class: Migration20261122000800_webhooks },
  { name: 'Migration20261122000900_versions', class: Migration20261122000900_versions },
  { name: 'Migration20261122001000_tags_folders_searches', class: Migration20261122001000_tags_folders_searches },
  { name: 'Migration20261122001100_content_embedding', class: Migration20261122001100_content_embedding },
  { name: 'Migration20261122001200_immutable_versions', class: Migration20261122001200_immutable_versions },
  { name: 'Migration20261124130002_revision', class: Migration20261124130002_revision },
  { name: 'Migration20261124130005_schedule', class: Migration20261124130005_schedule },
  { name: 'Migration20261124130006_name_trigram', class: Migration20261124130006_name_trigram },
  { name: 'Migration20261124190000_name_trigram_no_pending', class: Migration20261124190000_name_trigram_no_pending },
  { name: 'Migration20261125120000_published_content', class: Migration20261125120000_published_content },
  { name: 'Migration20261128120000_published_document', class: Migration20261128120000_published_document },
  { name: 'Migration20261128150000_content_links', class: Migration20261128150000_content_links },
  { name: 'Migration20261128170000_sync_indexes', class: Migration20261128170000_sync_indexes },
  { name: 'Migration20261128180000_release', class: Migration20261128180000_release },
  { name: 'Migration20261128210000_published_refresh', class: Migration20261128210000_published_refresh },
  { name: 'Migration20261129000000_published_refresh_many', class: Migration20261129000000_published_refresh_many },
  { name: 'Migration20261129050000_embedding_text_hash', class: Migration20261129050000_embedding_text_hash },
  {
    name: 'Migration20261129130000_published_refresh_by_index',
    class: Migration20261129130000_published_refresh_by_index,
  },
];
