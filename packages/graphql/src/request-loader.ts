// Per-request batching of entity lookups by id (federation `_entities` calls resolve references one by one).
import DataLoader from 'dataloader';
import type { Context } from '@cp/principal';

const loaders = new WeakMap<object, Map<string, DataLoader<string, unknown>>>();

/**
 * A DataLoader living as long as the request's EntityManager: every reference resolved in one tick becomes one
 * query. `batch` receives distinct ids and returns the rows found, in any order.
 */
export function requestLoader<T extends { id: string }>(
  ctx: Context,
  name: string,
  batch: (ids: readonly string[]) => Promise<T[]>,
): DataLoader<string, T | null> {
  let byName = loaders.get(ctx.em);
  if (!byName) loaders.set(ctx.em, (byName = new Map()));
  let loader = byName.get(name) as DataLoader<string, T | null> | undefined;
  if (!loader) {
    loader = new DataLoader<string, T | null>(async (ids) => {
      const rows = new Map((await batch(ids)).map((row) => [row.id, row]));
      return ids.map((id) => rows.get(id) ?? null);
    });
    byName.set(name, loader as DataLoader<string, unknown>);
  }
  return loader;
}
