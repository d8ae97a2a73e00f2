// The content subgraph: content types (and, later, content entries, tags, folders, saved searches).
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import { ContentType } from './content-type/content-type.entity';
import { ContentTypeResolver } from './content-type/content-type.resolver';
import { EventResolver } from './event/event.resolver';
import { contentMigrations } from './migrations';

export const contentDatabase: DatabaseModule = {
  name: 'content',
  entities: [ContentType],
  migrations: contentMigrations,
};

export function buildContentSubgraph(): Promise<BuiltSubgraph> {
  return buildFederatedSchema({ name: 'content', resolvers: [ContentTypeResolver, EventResolver] });
}
