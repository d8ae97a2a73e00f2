// Migrations of the assets subgraph, in order.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000400_asset } from './Migration20261122000400_asset';
import { Migration20261128180000_image_variant_lease } from './Migration20261128180000_image_variant_lease';

export const assetMigrations: MigrationObject[] = [
  { name: 'Migration20261122000400_asset', class: Migration20261122000400_asset },
  { name: 'Migration20261128180000_image_variant_lease', class: Migration20261128180000_image_variant_lease },
];
