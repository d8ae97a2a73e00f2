// What API keys see of components: the last published version of each, never a draft or a working copy (D9).
import { EntityStatus, keysetPage, type CursorArgs, type ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { lastPublishedVersions } from '@cp/db';
import { NotFoundError } from '@cp/errors';
import { ComponentVersion } from './component-version.entity';
import { Component } from './component.entity';

function publishedView(component: Component, version: ComponentVersion): Component {
  const { name, type, title, description, content, compiled, schema } = version;
  // The working copy's `updatedAt` and `revision` move with every draft edit: the version's own stand in (D9).
  const stamps = { updatedAt: version.createdAt, revision: version.version };
  return { ...component, name, type, title, description, content, compiled, schema, status: EntityStatus.published, version: version.version, ...stamps };
}

async function withVersions(em: EntityManager, components: Component[]): Promise<Component[]> {
  const versions = await lastPublishedVersions(em, ComponentVersion, 'componentId', components);
  return components.flatMap((c) => {
    const version = versions.get(c.id);
    return version ? [publishedView(c, version)] : [];
  });
}

export async function listPublishedComponents(em: EntityManager, scope: ProjectScope, args: CursorArgs) {
  const where = {
    organizationId: scope.organizationId,
    projectId: scope.projectId,
    lastPublishedVersion: { $ne: null },
    status: { $ne: EntityStatus.deleted },
  };
  const page = await keysetPage(em, Component, { where, sortField: 'createdAt', direction: 'desc', args });
  return { ...page, data: await withVersions(em, page.data) };
}

export async function getPublishedComponent(em: EntityManager, scope: ProjectScope, id: string): Promise<Component> {
  const component = await em.findOne(Component, {
    id,
    organizationId: scope.organizationId,
    projectId: scope.projectId,
    lastPublishedVersion: { $ne: null },
    status: { $ne: EntityStatus.deleted },
  });
  const [view] = component ? await withVersions(em, [component]) : [];
  if (!view) throw new NotFoundError('Component', id);
  return view;
}
