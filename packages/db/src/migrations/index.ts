// Core migrations, run before every subgraph's own (each subgraph owns the tables of its features).
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_core } from './Migration20261122000000_core';
import { Migration20261122000700_event_position } from './Migration20261122000700_event_position';
import { Migration20261124110000_rate_limit_unlogged } from './Migration20261124110000_rate_limit_unlogged';
import { Migration20261124130004_idempotency_key } from './Migration20261124130004_idempotency_key';
import { Migration20261125120000_idempotency_permissions } from './Migration20261125120000_idempotency_permissions';
import { Migration20261126120000_event_record_order } from './Migration20261126120000_event_record_order';
import { Migration20261126120100_event_occurred_at_database_clock } from './Migration20261126120100_event_occurred_at_database_clock';

export const coreMigrations: MigrationObject[] = [
  { name: 'Migration20261122000000_core', class: Migration20261122000000_core },
  { name: 'Migration20261122000700_event_position', class: Migration20261122000700_event_position },
  { name: 'Migration20261124110000_rate_limit_unlogged', class: Migration20261124110000_rate_limit_unlogged },
  { name: 'Migration20261124130004_idempotency_key', class: Migration20261124130004_idempotency_key },
  { name: 'Migration20261125120000_idempotency_permissions', class: Migration20261125120000_idempotency_permissions },
  { name: 'Migration20261126120000_event_record_order', class: Migration20261126120000_event_record_order },
  {
    name: 'Migration20261126120100_event_occurred_at_database_clock',
    class: Migration20261126120100_event_occurred_at_database_clock,
  },
];
