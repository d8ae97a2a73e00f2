// Migrations of the components subgraph, in order.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261124130003_revision } from './Migration20261124130003_revision';
import { Migration20261122000300_component } from './Migration20261122000300_component';
import { Migration20261122000500_packages } from './Migration20261122000500_packages';
import { Migration20261122000600_component_asset } from './Migration20261122000600_component_asset';
import { Migration20261122001300_immutable_versions } from './Migration20261122001300_immutable_versions';
import { Migration20261126090000_version_metadata } from './Migration20261126090000_version_metadata';

export const componentMigrations: MigrationObject[] = [
  { name: 'Migration20261122000300_component', class: Migration20261122000300_component },
  { name: 'Migration20261122000500_packages', class: Migration20261122000500_packages },
  { name: 'Migration20261122000600_component_asset', class: Migration20261122000600_component_asset },
  { name: 'Migration20261122001300_immutable_versions', class: Migration20261122001300_immutable_versions },
  { name: 'Migration20261124130003_revision', class: Migration20261124130003_revision },
  { name: 'Migration20261126090000_version_metadata', class: Migration20261126090000_version_metadata },
];
