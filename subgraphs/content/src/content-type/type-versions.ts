// Content type versions as content reads them: immutable (the database refuses changes), so each is read once per
// database and kept.
import { AppError } from '@cp/errors';
import type { EntityManager } from '@mikro-orm/postgresql';
import { localizedKeys } from '../shared/json-schema';
import { ContentTypeVersion } from './content-type-version.entity';

/** What content needs of a type version; shared between requests, never changed. */
export interface FrozenTypeVersion extends Pick<ContentTypeVersion, 'version' | 'packageVersion' | 'content'> {
  /** The schema's top-level properties marked `"localized": true`. */
  localized: readonly string[];
}

/** Per database (a connection per ORM): every edit, publish and localized read needs its entry's. */
const known = new WeakMap<object, Map<string, FrozenTypeVersion>>();
const MAX_KEPT = 1000;

function keptFor(em: EntityManager): Map<string, FrozenTypeVersion> {
  let kept = known.get(em.getConnection());
  if (!kept) known.set(em.getConnection(), (kept = new Map()));
  return kept;
}

function keep(kept: Map<string, FrozenTypeVersion>, typeId: string, row: ContentTypeVersion): FrozenTypeVersion {
  if (kept.size >= MAX_KEPT) kept.clear();
  const frozen = {
    version: row.version,
    packageVersion: row.packageVersion,
    content: row.content,
    localized: localizedKeys(row.content.schema),
  };
  kept.set(`${typeId}:${row.version}`, frozen);
  return frozen;
}

/** One type version; 422 `TYPE_VERSION_NOT_FOUND` when it doesn't exist. */
export async function typeVersion(em: EntityManager, typeId: string, version: number): Promise<FrozenTypeVersion> {
  const kept = keptFor(em);
  const cached = kept.get(`${typeId}:${version}`);
  if (cached) return cached;
  const row = await em.findOne(ContentTypeVersion, { contentTypeId: typeId, version });
  if (!row)
    throw new AppError('TYPE_VERSION_NOT_FOUND', `Content type version ${version} does not exist.`, {
      typeId,
      version,
    });
  return keep(kept, typeId, row);
}

/**
 * The type versions a page of entries follows, by `typeId:typeVersion`: those not read before in one statement
 * (none once a replica has seen them).
 */
export async function typeVersionsOf(
  em: EntityManager,
  entries: readonly { typeId: string; typeVersion: number }[],
): Promise<Map<string, FrozenTypeVersion>> {
  const kept = keptFor(em);
  const found = new Map<string, FrozenTypeVersion>();
  const missing = new Map<string, { contentTypeId: string; version: number }>();
  for (const { typeId, typeVersion: version } of entries) {
    const key = `${typeId}:${version}`;
    const cached = kept.get(key);
    if (cached) found.set(key, cached);
    else missing.set(key, { contentTypeId: typeId, version });
  }
  if (missing.size === 0) return found;
  const rows = await em.find(ContentTypeVersion, { $or: [...missing.values()] }, { disableIdentityMap: true });
  for (const row of rows) found.set(`${row.contentTypeId}:${row.version}`, keep(kept, row.contentTypeId, row));
  return found;
}
