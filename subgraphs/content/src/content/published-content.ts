// What API keys see of one entry: the published projection, or for preview keys the working copy.
import { NotFoundError } from '@cp/errors';
import { PREVIEW_STATUSES, type LocaleRequest, type ProjectScope, type KeyVisibility } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContentTypeVersion } from '../content-type/content-type-version.entity';
import type { Content } from './content.entity';
import { readContentRows } from './content-rows';

export async function getVisibleContent(
  em: EntityManager,
  scope: ProjectScope,
  id: string,
  visibility: KeyVisibility,
  locale?: LocaleRequest,
): Promise<Content> {
  return oneVisible(em, scope, id, visibility, { locale });
}

/**
 * The entry with the content type version it follows (`contentType`), in one query: the published version for API
 * keys, the working copy (and the type version it was last validated against) for preview keys.
 */
export async function getResolvedContent(
  em: EntityManager,
  scope: ProjectScope,
  id: string,
  visibility: KeyVisibility,
  locale?: LocaleRequest,
): Promise<Content & { contentType: ContentTypeVersion }> {
  const entry = await oneVisible(em, scope, id, visibility, { typeVersion: true, locale });
  return entry as Content & { contentType: ContentTypeVersion };
}

async function oneVisible(
  em: EntityManager,
  scope: ProjectScope,
  id: string,
  visibility: KeyVisibility,
  options: { typeVersion?: boolean; locale?: LocaleRequest },
) {
  const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
  const published = visibility === 'published';
  const visible = published ? where : { ...where, status: { $in: [...PREVIEW_STATUSES] } };
  const [view] = await readContentRows(em, visible, {}, 1, { published, ...options });
  if (!view) throw new NotFoundError('Content', id);
  return view;
}
