// What API keys see of content types: the last published version of each, never a draft or a working copy (D9);
// preview keys see the working copies instead (D18).
import { lastPublishedVersions } from '@cp/db';
import { NotFoundError } from '@cp/errors';
import {
  EntityStatus,
  keysetPage,
  PREVIEW_STATUSES,
  type CursorArgs,
  type KeyVisibility,
  type ProjectScope,
} from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ContentTypeVersion } from './content-type-version.entity';
import { ContentType } from './content-type.entity';

const visible = (scope: ProjectScope, visibility: KeyVisibility) => {
  const project = { organizationId: scope.organizationId, projectId: scope.projectId };
  if (visibility === 'preview') return { ...project, status: { $in: [...PREVIEW_STATUSES] } };
  const live = { $nin: [EntityStatus.deleted, EntityStatus.unpublished] };
  return { ...project, lastPublishedVersion: { $ne: null }, status: live };
};

async function asPublished(em: EntityManager, types: ContentType[]): Promise<ContentType[]> {
  const versions = await lastPublishedVersions(em, ContentTypeVersion, 'contentTypeId', types);
  return types.flatMap((t) => {
    const v = versions.get(t.id);
    if (!v) return [];
    // The working copy's `updatedAt` and `revision` move with every draft edit: the version's own stand in (D9).
    const published = {
      status: EntityStatus.published,
      version: v.version,
      packageVersion: v.packageVersion,
      updatedAt: v.createdAt,
      revision: v.version,
    };
    return [{ ...t, ...v.content, ...published } as ContentType];
  });
}

export async function listVisibleContentTypes(
  em: EntityManager,
  scope: ProjectScope,
  args: CursorArgs,
  visibility: KeyVisibility,
) {
  const where = visible(scope, visibility);
  const page = await keysetPage(em, ContentType, { where, sortField: 'createdAt', direction: 'desc', args });
  return visibility === 'preview' ? page : { ...page, data: await asPublished(em, page.data) };
}

export async function getVisibleContentType(
  em: EntityManager,
  scope: ProjectScope,
  id: string,
  visibility: KeyVisibility,
): Promise<ContentType> {
  const type = await em.findOne(ContentType, { id, ...visible(scope, visibility) });
  const [view] = !type ? [] : visibility === 'preview' ? [type] : await asPublished(em, [type]);
  if (!view) throw new NotFoundError('ContentType', id);
  return view;
}
