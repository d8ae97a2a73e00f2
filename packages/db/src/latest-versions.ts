// The last published version row of each of several records, in one query (published-only views).
import type { EntityClass, EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { VersionRecord } from './version-record.entity';

/** `key` is the version table's column naming its record (`contentId`, `componentId`, …); unpublished records are skipped. */
export async function lastPublishedVersions<V extends VersionRecord>(
  em: EntityManager,
  versions: EntityClass<V>,
  key: keyof V & string,
  records: { id: string; lastPublishedVersion?: number | null }[],
): Promise<Map<string, V>> {
  const published = records.filter((r) => r.lastPublishedVersion);
  if (published.length === 0) return new Map();
  const rows = await em.find(versions, {
    $or: published.map((r) => ({ [key]: r.id, version: r.lastPublishedVersion })),
  } as FilterQuery<V>);
  return new Map(rows.map((row) => [row[key] as string, row]));
}
