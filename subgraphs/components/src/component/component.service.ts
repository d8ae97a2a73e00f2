// Component rules: compile on every source change, names unique per project, lifecycle per the state table, events.
import { recordEvent, transactionalNamed } from '@cp/db';
import { AppError, BadRequestError, NotFoundError } from '@cp/errors';
import { EntityStatus, keysetPage, type CursorArgs, type ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { compileComponent } from '../compiler/component-compiler';
import { Package } from '../package/package.entity';
import { assertTransition } from './component-lifecycle';
import { ComponentVersion } from './component-version.entity';
import { Component } from './component.entity';
import type { CreateComponentInput, UpdateComponentInput } from './component.inputs';

const TYPES = ['view', 'layout'] as const;

export class ComponentService {
  list(em: EntityManager, scope: ProjectScope, args: CursorArgs) {
    const where = { organizationId: scope.organizationId, projectId: scope.projectId };
    return keysetPage(em, Component, { where, sortField: 'createdAt', direction: 'desc', args });
  }

  async get(em: EntityManager, scope: ProjectScope, id: string): Promise<Component> {
    const component = await em.findOne(Component, { id, organizationId: scope.organizationId, projectId: scope.projectId });
    if (!component) throw new NotFoundError('Component', id);
    return component;
  }

  /** Creation failures are 400 with a map of field → message (D4, spec "Create component"). */
  async create(em: EntityManager, scope: ProjectScope, input: CreateComponentInput, actorId: string): Promise<Component> {
    const problems: Record<string, string> = {};
    const name = input.name?.trim() ?? '';
    if (!name) problems.name = 'is required';
    else if (name.length > 255) problems.name = 'must be at most 255 characters';
    if (input.type === undefined || input.type === null) problems.type = 'is required';
    else if (!TYPES.includes(input.type as never)) problems.type = 'must be `view` or `layout`';
    if (!input.content?.trim()) problems.content = 'is required';
    if (Object.keys(problems).length > 0) throw new BadRequestError('The component failed validation.', problems);
    const content = input.content!;
    const built = await compileComponent(content);
    return transactionalNamed(em, 'component', name, async (tx) => {
      const component = tx.create(Component, {
        ...scope,
        name,
        type: input.type as 'view' | 'layout',
        content,
        ...built,
        collectionId: input.collectionId ?? null,
        metadata: { ...input.metadata, author: actorId },
        createdById: actorId,
      });
      recordEvent(tx, { resourceType: 'components', action: 'created', resourceId: component.id, ...scope, actorId });
      return component;
    });
  }

  async update(em: EntityManager, scope: ProjectScope, id: string, input: UpdateComponentInput, actorId: string) {
    if (input.type !== undefined && !TYPES.includes(input.type as never)) {
      throw new BadRequestError('The component failed validation.', { type: 'must be `view` or `layout`' });
    }
    const name = input.name?.trim();
    if (name !== undefined && !name) throw new BadRequestError('The component failed validation.', { name: 'must not be empty' });
    if (name !== undefined && name.length > 255) throw new BadRequestError('The component failed validation.', { name: 'must be at most 255 characters' });
    const built = input.content === undefined ? undefined : await compileComponent(input.content);
    return transactionalNamed(em, 'component', name ?? '', async (tx) => {
      const component = await this.get(tx, scope, id);
      assertTransition(component.status, 'update');
      if (name !== undefined) component.name = name;
      if (input.type !== undefined) component.type = input.type as 'view' | 'layout';
      if (input.content !== undefined && built) Object.assign(component, { content: input.content, ...built });
      if (input.collectionId !== undefined) component.collectionId = input.collectionId;
      if (input.metadata !== undefined) component.metadata = { ...input.metadata, author: component.metadata.author };
      this.toWorkingCopy(component);
      recordEvent(tx, { resourceType: 'components', action: 'updated', resourceId: id, ...scope, actorId });
      return component;
    });
  }

  /** Components a package references can't be deleted (D3); others are soft-deleted. */
  async delete(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return em.transactional(async (tx) => {
      const component = await this.get(tx, scope, id);
      assertTransition(component.status, 'delete');
      const packages = await tx.find(
        Package,
        { organizationId: scope.organizationId, projectId: scope.projectId, components: { $contains: [{ id }] } as never },
        { orderBy: { createdAt: 'asc' }, fields: ['version'] },
      );
      if (packages.length > 0) {
        throw new AppError('COMPONENT_IN_USE', 'Packages reference this component.', { packages: packages.map((p) => p.version) });
      }
      component.status = EntityStatus.deleted;
      recordEvent(tx, { resourceType: 'components', action: 'deleted', resourceId: id, ...scope, actorId });
      return component;
    });
  }

  /** Cancels the working copy: back to the last published version. */
  async discard(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    let restored = '';
    return transactionalNamed(em, 'component', () => restored, async (tx) => {
      const component = await this.get(tx, scope, id);
      assertTransition(component.status, 'discard');
      const last = await this.version(tx, component, component.lastPublishedVersion!);
      this.copyFrom(component, last);
      restored = component.name;
      component.status = EntityStatus.published;
      component.version = last.version;
      recordEvent(tx, { resourceType: 'components', action: 'discarded', resourceId: id, ...scope, actorId, version: last.version });
      return component;
    });
  }

  /** A working copy from an earlier version; existing versions are untouched. */
  async rollback(em: EntityManager, scope: ProjectScope, id: string, version: number, actorId: string) {
    let restored = '';
    return transactionalNamed(em, 'component', () => restored, async (tx) => {
      const component = await this.get(tx, scope, id);
      assertTransition(component.status, 'rollback');
      this.copyFrom(component, await this.version(tx, component, version));
      restored = component.name;
      this.toWorkingCopy(component);
      recordEvent(tx, { resourceType: 'components', action: 'rolledBack', resourceId: id, ...scope, actorId, version });
      return component;
    });
  }

  /** Back from `deleted`: `modified` when a published version exists, otherwise `draft` (D3). */
  async restore(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return em.transactional(async (tx) => {
      const component = await this.get(tx, scope, id);
      assertTransition(component.status, 'restore');
      component.status = component.lastPublishedVersion ? EntityStatus.modified : EntityStatus.draft;
      component.version = null;
      recordEvent(tx, { resourceType: 'components', action: 'restored', resourceId: id, ...scope, actorId });
      return component;
    });
  }

  async versions(em: EntityManager, scope: ProjectScope, id: string): Promise<ComponentVersion[]> {
    const component = await this.get(em, scope, id);
    return em.find(ComponentVersion, { componentId: component.id }, { orderBy: { version: 'desc' } });
  }

  private async version(em: EntityManager, component: Component, version: number): Promise<ComponentVersion> {
    const row = await em.findOne(ComponentVersion, { componentId: component.id, version });
    if (!row) throw new NotFoundError('ComponentVersion', String(version));
    return row;
  }

  private copyFrom(component: Component, version: ComponentVersion): void {
    const { name, type, title, description, content, compiled, schema } = version;
    Object.assign(component, { name, type, title, description, content, compiled, schema });
  }

  private toWorkingCopy(component: Component): void {
    if (component.status === EntityStatus.published) component.status = EntityStatus.modified;
    if (component.status === EntityStatus.modified) component.version = null;
  }
}
