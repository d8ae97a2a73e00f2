// What API keys see of content (D9): the published projection of each entry; drafts and working copies never.
import { NotFoundError } from '@cp/errors';
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContentTypeVersion } from '../content-type/content-type-version.entity';
import type { Content } from './content.entity';
import { readContentRows } from './content-rows';

export async function getPublishedContent(em: EntityManager, scope: ProjectScope, id: string): Promise<Content> {
  return onePublished(em, scope, id, {});
}

/** The published entry with the content type version it follows (`contentType`), in one query. */
export async function getResolvedContent(em: EntityManager, scope: ProjectScope, id: string): Promise<Content & { contentType: ContentTypeVersion }> {
  return onePublished(em, scope, id, { typeVersion: true }) as Promise<Content & { contentType: ContentTypeVersion }>;
}

async function onePublished(em: EntityManager, scope: ProjectScope, id: string, options: { typeVersion?: boolean }): Promise<Content> {
  const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
  const [view] = await readContentRows(em, where, {}, 1, { published: true, ...options });
  if (!view) throw new NotFoundError('Content', id);
  return view;
}
