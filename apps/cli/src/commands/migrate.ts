// `content-platform migrate`: brings the database schema up to date (what the service does at start-up) and bootstraps an empty one.
import { SUBGRAPHS } from '@cp/supergraph';
import { cliConfig, withDatabase } from '../runtime';

export function migrate(progress: { note(message: string): void }) {
  const config = cliConfig();
  // Opening the database runs every pending migration under the same advisory lock the service uses.
  return withDatabase(config, async (db) => {
    const executed = await db.orm.getMigrator().getExecutedMigrations();
    for (const module of SUBGRAPHS) await module.bootstrap?.({ config, orm: db.orm });
    const last = executed.at(-1)?.name ?? 'none';
    progress.note(`database is up to date: ${executed.length} migrations applied, the last ${last}`);
    return { applied: executed.length, last };
  });
}
