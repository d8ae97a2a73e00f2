// Core migrations, run before every subgraph's own (each subgraph owns the tables of its features).
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_core } from './Migration20261122000000_core';
import { Migration20261122000700_event_position } from './Migration20261122000700_event_position';

export const coreMigrations: MigrationObject[] = [
  { name: 'Migration20261122000000_core', class: Migration20261122000000_core },
  { name: 'Migration20261122000700_event_position', class: Migration20261122000700_event_position },
];
