// What API keys read of a versioned record (components, content types): the last published version of each, never a
// draft or a working copy; preview keys read the working copies instead. One reader serves every kind.
import { NotFoundError } from '@cp/errors';
import type { KeyVisibility, ProjectScope } from '@cp/principal';
import { EntityStatus, PREVIEW_STATUSES } from './entity-status';
import { keysetPage, type CursorArgs } from './pagination';
import type { EntityClass, EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { lastPublishedVersions } from './latest-versions';
import type { VersionRecord } from './version-record.entity';

interface Published {
  id: string;
  createdAt: Date;
  lastPublishedVersion?: number | null;
  status: EntityStatus;
}

export interface PublishedReaderOptions<E extends Published, V extends VersionRecord> {
  /** The name a 404 gives (`NotFoundError`). */
  name: string;
  entity: EntityClass<E>;
  versions: EntityClass<V>;
  /** The version table's column naming its record (`componentId`, …). */
  key: keyof V & string;
  /** Statuses a published-scope key never sees, although a version was once published. */
  hidden: EntityStatus[];
  /** The version's own fields over the working copy's `record` (the stamps below are added to it). */
  fields(version: V, record: E): Partial<E>;
}

export function publishedReader<E extends Published, V extends VersionRecord>(options: PublishedReaderOptions<E, V>) {
  const visible = (scope: ProjectScope, visibility: KeyVisibility): Record<string, unknown> => {
    const project = { organizationId: scope.organizationId, projectId: scope.projectId };
    if (visibility === 'preview') return { ...project, status: { $in: [...PREVIEW_STATUSES] } };
    return { ...project, lastPublishedVersion: { $ne: null }, status: { $nin: options.hidden } };
  };

  const asPublished = async (em: EntityManager, records: E[]): Promise<E[]> => {
    const versions = await lastPublishedVersions(em, options.versions, options.key, records);
    return records.flatMap((record) => {
      const version = versions.get(record.id);
      if (!version) return [];
      // The working copy's `updatedAt` and `revision` move with every draft edit: the version's own stand in.
      const stamps = { status: EntityStatus.published, version: version.version };
      const moments = { updatedAt: version.createdAt, revision: version.version };
      return [{ ...record, ...options.fields(version, record), ...stamps, ...moments } as E];
    });
  };

  return {
    async list(em: EntityManager, scope: ProjectScope, args: CursorArgs, visibility: KeyVisibility) {
      const where = visible(scope, visibility) as FilterQuery<E>;
      const page = await keysetPage(em, options.entity, { where, sortField: 'createdAt', direction: 'desc', args });
      return visibility === 'preview' ? page : { ...page, data: await asPublished(em, page.data) };
    },

    async get(em: EntityManager, scope: ProjectScope, id: string, visibility: KeyVisibility): Promise<E> {
      const record = await em.findOne(options.entity, { id, ...visible(scope, visibility) } as FilterQuery<E>);
      const [view] = !record ? [] : visibility === 'preview' ? [record] : await asPublished(em, [record]);
      if (!view) throw new NotFoundError(options.name, id);
      return view;
    },
  };
}
