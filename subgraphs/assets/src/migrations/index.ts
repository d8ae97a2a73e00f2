// Migrations of the assets subgraph, in order.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000400_asset } from './Migration20261122000400_asset';

export const assetMigrations: MigrationObject[] = [
  { name: 'Migration20261122000400_asset', class: Migration20261122000400_asset },
];
