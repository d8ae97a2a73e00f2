// Content type rules: tenancy-scoped reads, creation, partial update and the lifecycle, each write with its event.
import {
  assertProjectReferences,
  lifecycleBatch,
  lockEntities,
  lifecycleTransition,
  nextVersion,
  recordEvent,
  transactionalNamed,
  type Lifecycle,
  type LifecycleAction,
} from '@cp/db';
import { AppError, NotFoundError } from '@cp/errors';
import { EntityStatus, keysetPage, type CursorArgs, type ProjectScope, requireName } from '@cp/graphql';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterEdit, assertTransition, publishedEvent } from '../lifecycle/lifecycle';
import { deleteChange, restoreChange, unpublishChange } from '../lifecycle/lifecycle';
import { latestPackageVersion } from '../shared/component-catalog';
import { ContentTypeVersion, type ContentTypeSnapshot } from './content-type-version.entity';
import { ContentType } from './content-type.entity';
import type { CreateContentTypeInput, UpdateContentTypeInput } from './content-type.inputs';
import { assertValidAllowList } from './allow-list';
import { assertValidJsonSchema } from './schema-validation';

/** Statuses `PATCH …/status` accepts (spec: a direct override for draft, published, deleted). */
const OVERRIDABLE = [EntityStatus.draft, EntityStatus.published, EntityStatus.deleted];

export class ContentTypeService {
  /** Writes after creation (not `PATCH …/status` to draft): lock, state table, change, event; NAME_TAKEN on names. */
  private readonly lifecycle: Lifecycle<ContentType, LifecycleAction> = {
    resourceType: 'content-types',
    namedAs: 'content type',
    lock: (tx, scope, id) => this.get(tx, scope, id, true),
    guard: assertTransition,
    published: publishedEvent,
  };
  private readonly transition = lifecycleTransition(this.lifecycle);
  /** A release's content types, locked in one statement in id order. */
  private readonly batch = lifecycleBatch(this.lifecycle, lockEntities(ContentType));

  list(em: EntityManager, scope: ProjectScope, args: CursorArgs) {
    return keysetPage(em, ContentType, {
      where: { organizationId: scope.organizationId, projectId: scope.projectId },
      sortField: 'createdAt',
      direction: 'desc',
      args,
    });
  }

  async get(em: EntityManager, scope: ProjectScope, id: string, lock = false): Promise<ContentType> {
    const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
    const type = await em.findOne(ContentType, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!type) throw new NotFoundError('ContentType', id);
    return type;
  }

  async create(
    em: EntityManager,
    scope: ProjectScope,
    input: CreateContentTypeInput,
    actorId: string,
  ): Promise<ContentType> {
    const name = requireName(input.name);
    assertValidJsonSchema(input.schema);
    if (input.componentIdsAllowList !== undefined) await assertValidAllowList(em, scope, input.componentIdsAllowList);
    return transactionalNamed(em, 'content type', name, async (tx) => {
      await assertTypeReferences(tx, scope, input);
      const type = tx.create(ContentType, {
        ...scope,
        name,
        description: input.description ?? null,
        schema: input.schema,
        layoutComponentId: input.layoutComponentId ?? null,
        componentIdsAllowList: input.componentIdsAllowList ?? [],
        templateContentIds: input.templateContentIds ?? [],
        permissions: input.permissions ?? {},
        metadata: input.metadata ?? {},
        createdById: actorId,
      });
      recordEvent(tx, { resourceType: 'content-types', action: 'created', resourceId: type.id, ...scope, actorId });
      return type;
    });
  }

  /** Only the members given change; a published (or unpublished) type becomes a `modified` working copy. */
  async update(em: EntityManager, scope: ProjectScope, id: string, input: UpdateContentTypeInput, actorId: string) {
    const name = input.name === undefined ? undefined : requireName(input.name);
    if (input.schema !== undefined) assertValidJsonSchema(input.schema);
    if (input.componentIdsAllowList !== undefined) await assertValidAllowList(em, scope, input.componentIdsAllowList);
    return this.transition(em, scope, id, 'update', actorId, async (tx, type) => {
      await assertTypeReferences(tx, scope, input);
      const changes = Object.fromEntries(Object.entries({ ...input, name }).filter(([, v]) => v !== undefined));
      tx.assign(type, changes);
      afterEdit(type);
    });
  }

  /** The next consecutive version: the row lock makes concurrent publishes queue, the unique key backs it up. */
  publish(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'publish', actorId, (tx, type) => publishChange(tx, scope, type, actorId));
  }

  /**
   * Publishes or unpublishes many content types in the caller's transaction, each as `publish` / `unpublish` would,
   * and reports each one's outcome (see `lifecycleBatch`): nothing is written before the caller's commit.
   */
  transitionMany(
    tx: EntityManager,
    scope: ProjectScope,
    items: readonly { id: string; action: 'publish' | 'unpublish' }[],
    actorId: string,
  ) {
    return this.batch(tx, scope, items, actorId, (action) =>
      action === 'publish' ? (inner, type) => publishChange(inner, scope, type, actorId) : unpublishChange,
    );
  }

  unpublish(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'unpublish', actorId, unpublishChange);
  }

  discard(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'discard', actorId, async (tx, type) => {
      const last = await this.version(tx, type, type.lastPublishedVersion!);
      Object.assign(type, last.content, {
        status: EntityStatus.published,
        version: last.version,
        packageVersion: last.packageVersion,
      });
      return last.version;
    });
  }

  rollback(em: EntityManager, scope: ProjectScope, id: string, version: number, actorId: string) {
    return this.transition(em, scope, id, 'rollback', actorId, async (tx, type) => {
      Object.assign(type, (await this.version(tx, type, version)).content);
      afterEdit(type);
      return version;
    });
  }

  delete(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'delete', actorId, deleteChange('content-types'));
  }

  restore(em: EntityManager, scope: ProjectScope, id: string, actorId: string) {
    return this.transition(em, scope, id, 'restore', actorId, restoreChange);
  }

  /** `PATCH …/status`: published and deleted run the real transitions; draft is the spec's unvalidated override. */
  async setStatus(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    status: string,
    actorId: string,
  ): Promise<ContentType> {
    if (!OVERRIDABLE.includes(status as EntityStatus)) {
      throw new AppError('INVALID_STATUS', `Status must be one of ${OVERRIDABLE.join(', ')}.`, {
        status,
        allowed: OVERRIDABLE,
      });
    }
    const current = await this.get(em, scope, id);
    if (current.status === status) return current;
    if (status === EntityStatus.published) return this.publish(em, scope, id, actorId);
    if (status === EntityStatus.deleted) return this.delete(em, scope, id, actorId);
    return em.transactional(async (tx) => {
      const type = await this.get(tx, scope, id, true);
      Object.assign(type, { status: EntityStatus.draft, version: null });
      recordEvent(tx, { resourceType: 'content-types', action: 'updated', resourceId: id, ...scope, actorId });
      return type;
    });
  }

  async versions(em: EntityManager, scope: ProjectScope, id: string): Promise<ContentTypeVersion[]> {
    const type = await this.get(em, scope, id);
    return em.find(ContentTypeVersion, { contentTypeId: type.id }, { orderBy: { version: 'desc' } });
  }

  async version(em: EntityManager, type: ContentType, version: number): Promise<ContentTypeVersion> {
    const row = await em.findOne(ContentTypeVersion, { contentTypeId: type.id, version });
    if (!row) throw new NotFoundError('ContentTypeVersion', String(version));
    return row;
  }
}

/** Publish: a new version pinning the project's latest package. */
async function publishChange(tx: EntityManager, scope: ProjectScope, type: ContentType, actorId: string) {
  const version = nextVersion(type);
  const packageVersion = await latestPackageVersion(tx, scope);
  tx.create(ContentTypeVersion, {
    contentTypeId: type.id,
    ...scope,
    version,
    content: snapshot(type),
    packageVersion,
    createdById: actorId,
  });
  Object.assign(type, { status: EntityStatus.published, version, lastPublishedVersion: version, packageVersion });
  return version;
}

function snapshot(type: ContentType): ContentTypeSnapshot {
  const {
    name,
    description,
    schema,
    layoutComponentId,
    componentIdsAllowList,
    templateContentIds,
    permissions,
    metadata,
  } = type;
  return {
    name,
    description,
    schema,
    layoutComponentId,
    componentIdsAllowList,
    templateContentIds,
    permissions,
    metadata,
  };
}

/** The layout must be a layout component of the project, templates entries of it (422 otherwise). */
function assertTypeReferences(
  em: EntityManager,
  scope: ProjectScope,
  input: { layoutComponentId?: string | null; templateContentIds?: string[] },
) {
  return assertProjectReferences(em, scope, [
    {
      table: 'component',
      path: '/layoutComponentId',
      ids: input.layoutComponentId ? [input.layoutComponentId] : [],
      where: { sql: `"type" = 'layout'`, message: 'must be a layout component' },
    },
    { table: 'content', path: '/templateContentIds/', ids: input.templateContentIds ?? [] },
  ]);
}
