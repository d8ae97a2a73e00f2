// Migrations of the access subgraph, in order.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261124130001_revision } from './Migration20261124130001_revision';
import { Migration20261122000100_access } from './Migration20261122000100_access';
import { Migration20261122000200_api_keys } from './Migration20261122000200_api_keys';
import { Migration20261125150000_api_key_scope } from './Migration20261125150000_api_key_scope';
import { Migration20261128200000_project_locales } from './Migration20261128200000_project_locales';

export const accessMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100_access', class: Migration20261122000100_access },
  { name: 'Migration20261122000200_api_keys', class: Migration20261122000200_api_keys },
  { name: 'Migration20261124130001_revision', class: Migration20261124130001_revision },
  { name: 'Migration20261125150000_api_key_scope', class: Migration20261125150000_api_key_scope },
  { name: 'Migration20261128200000_project_locales', class: Migration20261128200000_project_locales },
];
