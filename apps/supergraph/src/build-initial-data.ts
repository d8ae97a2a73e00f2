// Build step: the embedded database's initial data, derived from every subgraph's migrations (never committed), so a
// first `npm start` without DATABASE_URL loads a migrated database instead of creating and migrating one.
import { buildInitialData } from '@cp/db';
import { INITIAL_DATA, SUBGRAPHS } from './subgraphs';

buildInitialData(
  SUBGRAPHS.map((s) => s.database),
  INITIAL_DATA,
).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
