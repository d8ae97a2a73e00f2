// Component rules: compile on every source change, names unique per project, lifecycle per the state table, events.
import { lifecycleTransition, recordEvent, transactionalNamed } from '@cp/db';
import { AppError, BadRequestError, NotFoundError } from '@cp/errors';
import { EntityStatus, keysetPage, type CursorArgs, type ProjectScope } from '@cp/graphql';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { compileComponent } from '../compiler/component-compiler';
import { Package } from '../package/package.entity';
import { assertTransition } from './component-lifecycle';
import { ComponentVersion } from './component-version.entity';
import { Component } from './component.entity';
import type { CreateComponentInput, UpdateComponentInput } from './component.inputs';

const TYPES = ['view', 'layout'] as const;
/** A collection id fits its column (64 characters); component refusals are 400 with a field map. */
const COLLECTION_TOO_LONG = 'must be at most 64 characters';
const tooLongCollection = (id: string | null | undefined) => (id?.length ?? 0) > 64;

export class ComponentService {
  /** Every write after creation: lock, state table, change, event (NAME_TAKEN on names). */
  private readonly transition = lifecycleTransition({
    resourceType: 'components',
    namedAs: 'component',
    lock: (tx, scope, id) => this.get(tx, scope, id, true),
    guard: assertTransition,
  });

  list(em: EntityManager, scope: ProjectScope, args: CursorArgs) {
    const where = { organizationId: scope.organizationId, projectId: scope.projectId };
    return keysetPage(em, Component, { where, sortField: 'createdAt', direction: 'desc', args });
  }

  async get(em: EntityManager, scope: ProjectScope, id: string, lock = false): Promise<Component> {
    const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
    const component = await em.findOne(Component, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!component) throw new NotFoundError('Component', id);
    return component;
  }

  /** Creation failures are 400 with a map of field → message (spec "Create component"). */
  async create(
    em: EntityManager,
    scope: ProjectScope,
    input: CreateComponentInput,
    actorId: string,
  ): Promise<Component> {
    const problems: Record<string, string> = {};
    const name = input.name?.trim() ?? '';
    if (!name) problems.name = 'is required';
    else if (name.length > 255) problems.name = 'must be at most 255 characters';
    if (input.type === undefined || input.type === null) problems.type = 'is required';
    else if (!TYPES.includes(input.type as never)) problems.type = 'must be `view` or `layout`';
    if (!input.content?.trim()) problems.content = 'is required';
    if (tooLongCollection(input.collectionId)) problems.collectionId = COLLECTION_TOO_LONG;
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
    if (name !== undefined && !name)
      throw new BadRequestError('The component failed validation.', { name: 'must not be empty' });
    if (name !== undefined && name.length > 255)
      throw new BadRequestError('The component failed validation.', { name: 'must be at most 255 characters' });
    if (tooLongCollection(input.collectionId))
      throw new BadRequestError('The component failed validation.', { collectionId: COLLECTION_TOO_LONG });
    const built = input.content === undefined ? undefined : await compileComponent(input.content);
    return this.transition(em, scope, id, 'update', actorId, async (_tx, component) => {
      if (name !== undefined) component.name = name;
      if (input.type !== undefined) component.type = input.type as 'view' | 'layout';
      if (input.content !== undefined && built) Object.assign(component, { content: input.content, ...built });
      if (input.collectionId !== undefined) component.collectionId = input.collectionId;
      if (input.metadata !== undefined) component.metadata = { ...input.metadata, author: component.metadata.author };
      this.toWorkingCopy(component);
    });
  }

  /** Components a package references can't be deleted; others are soft-deleted. */
  delete(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'delete', actorId, async (tx, component) => {
      const packages = await tx.find(
        Package,
        {
          organizationId: scope.organizationId,
          projectId: scope.projectId,
          components: { $contains: [{ id }] } as never,
        },
        { orderBy: { createdAt: 'asc' }, fields: ['version'] },
      );
      if (packages.length > 0) {
        throw new AppError('COMPONENT_IN_USE', 'Packages reference this component.', {
          packages: packages.map((p) => p.version),
        });
      }
      component.status = EntityStatus.deleted;
    });
  }

  /** Cancels the working copy: back to the last published version (whose name may be taken since: NAME_TAKEN). */
  discard(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'discard', actorId, async (tx, component) => {
      const last = await this.version(tx, component, component.lastPublishedVersion!);
      this.copyFrom(component, last);
      component.status = EntityStatus.published;
      component.version = last.version;
      return last.version;
    });
  }

  /** A working copy from an earlier version; existing versions are untouched. */
  rollback(em: EntityManager, scope: ProjectScope, id: string, version: number, actorId: string) {
    return this.transition(em, scope, id, 'rollback', actorId, async (tx, component) => {
      this.copyFrom(component, await this.version(tx, component, version));
      this.toWorkingCopy(component);
      return version;
    });
  }

  /** Back from `deleted`: `modified` when a published version exists, otherwise `draft`. */
  restore(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'restore', actorId, async (_tx, component) => {
      component.status = component.lastPublishedVersion ? EntityStatus.modified : EntityStatus.draft;
      component.version = null;
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
    const { name, type, title, description, content, compiled, schema, metadata, collectionId } = version;
    Object.assign(component, { name, type, title, description, content, compiled, schema });
    // Versions published before they kept metadata and collection leave the working row's as they are.
    if (metadata) Object.assign(component, { metadata, collectionId: collectionId ?? null });
  }

  private toWorkingCopy(component: Component): void {
    if (component.status === EntityStatus.published) component.status = EntityStatus.modified;
    if (component.status === EntityStatus.modified) component.version = null;
  }
}
