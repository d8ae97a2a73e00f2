// What API keys see of components: the last published version of each, never a draft or a working copy (D9);
// preview keys see the working copies instead (D18).
import {
  EntityStatus,
  keysetPage,
  PREVIEW_STATUSES,
  type CursorArgs,
  type KeyVisibility,
  type ProjectScope,
} from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { lastPublishedVersions } from '@cp/db';
import { NotFoundError } from '@cp/errors';
import { ComponentVersion } from './component-version.entity';
import { Component } from './component.entity';

function publishedView(component: Component, version: ComponentVersion): Component {
  const { name, type, title, description, content, compiled, schema } = version;
  // The working copy's `updatedAt` and `revision` move with every draft edit: the version's own stand in (D9).
  const stamps = { updatedAt: version.createdAt, revision: version.version };
  return {
    ...component,
    name,
    type,
    title,
    description,
    content,
    compiled,
    schema,
    status: EntityStatus.published,
    version: version.version,
    ...stamps,
  };
}

async function withVersions(em: EntityManager, components: Component[]): Promise<Component[]> {
  const versions = await lastPublishedVersions(em, ComponentVersion, 'componentId', components);
  return components.flatMap((c) => {
    const version = versions.get(c.id);
    return version ? [publishedView(c, version)] : [];
  });
}

const visible = (scope: ProjectScope, visibility: KeyVisibility) => {
  const project = { organizationId: scope.organizationId, projectId: scope.projectId };
  if (visibility === 'preview') return { ...project, status: { $in: [...PREVIEW_STATUSES] } };
  return { ...project, lastPublishedVersion: { $ne: null }, status: { $ne: EntityStatus.deleted } };
};

export async function listVisibleComponents(
  em: EntityManager,
  scope: ProjectScope,
  args: CursorArgs,
  visibility: KeyVisibility,
) {
  const where = visible(scope, visibility);
  const page = await keysetPage(em, Component, { where, sortField: 'createdAt', direction: 'desc', args });
  return visibility === 'preview' ? page : { ...page, data: await withVersions(em, page.data) };
}

export async function getVisibleComponent(
  em: EntityManager,
  scope: ProjectScope,
  id: string,
  visibility: KeyVisibility,
): Promise<Component> {
  const component = await em.findOne(Component, { id, ...visible(scope, visibility) });
  const [view] = !component ? [] : visibility === 'preview' ? [component] : await withVersions(em, [component]);
  if (!view) throw new NotFoundError('Component', id);
  return view;
}
