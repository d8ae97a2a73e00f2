// What API keys see of content (D9): the last published version of each entry; drafts and working copies never.
import { lastPublishedVersions } from '@cp/db';
import { NotFoundError } from '@cp/errors';
import { EntityStatus, type ProjectScope } from '@cp/graphql';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { ContentTypeVersion } from '../content-type/content-type-version.entity';
import { Content, ContentVersion } from './content.entity';
import { readContentRows } from './content-rows';

/** Entries with a published version that is still live: published, or modified over a published version. */
export const PUBLISHED: FilterQuery<Content>[] = [{ lastPublishedVersion: { $ne: null } }, { status: { $in: [EntityStatus.published, EntityStatus.modified] } }];

export async function asPublished(em: EntityManager, entries: Content[]): Promise<Content[]> {
  const versions = await lastPublishedVersions(em, ContentVersion, 'contentId', entries);
  return entries.flatMap((e) => {
    const v = versions.get(e.id);
    return v ? [{ ...e, ...v.content, compiled: v.compiled, status: EntityStatus.published, version: v.version } as Content] : [];
  });
}

export async function getPublishedContent(em: EntityManager, scope: ProjectScope, id: string): Promise<Content> {
  return onePublished(em, scope, id, {});
}

/** The published entry with the content type version it follows (`contentType`), in one query. */
export async function getResolvedContent(em: EntityManager, scope: ProjectScope, id: string): Promise<Content & { contentType: ContentTypeVersion }> {
  return onePublished(em, scope, id, { typeVersion: true }) as Promise<Content & { contentType: ContentTypeVersion }>;
}

async function onePublished(em: EntityManager, scope: ProjectScope, id: string, options: { typeVersion?: boolean }): Promise<Content> {
  const where = { $and: [{ id, organizationId: scope.organizationId, projectId: scope.projectId }, ...PUBLISHED] };
  const [view] = await readContentRows(em, where, {}, 1, { published: true, ...options });
  if (!view) throw new NotFoundError('Content', id);
  return view;
}
