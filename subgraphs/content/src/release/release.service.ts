// Release rules: items checked on every edit, the newest-first list, and the all-or-nothing publish, which runs each
// item through its own service's publish or unpublish (the same versions, events and refusals as one by one).
import { recordEvent } from '@cp/db';
import {
  AppError,
  InvalidStatusTransitionError,
  NotFoundError,
  ValidationFailedError,
  type FieldError,
} from '@cp/errors';
import { keysetPage, requireName, type ProjectScope } from '@cp/graphql';
import { FlushMode, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ContentTypeService } from '../content-type/content-type.service';
import { ContentService } from '../content/content.service';
import { cancelPendingSchedules } from '../schedule/cancel-schedules';
import {
  Release,
  RELEASE_ACTIONS,
  RELEASE_RESOURCE_TYPES,
  ReleaseStatus,
  type ReleaseItem,
  type ReleaseResourceType,
} from './release.entity';
import type { ReleaseInput, ReleaseItemInput, ReleaseListArgs } from './release.inputs';

export const MAX_RELEASE_ITEMS = 1000;

/** Why an item would be refused: the error its own request would have answered. */
export interface ReleaseProblem {
  resourceType: ReleaseResourceType;
  resourceId: string;
  code: string;
  message: string;
}

/** 409 RELEASE_FAILED: at least one item was refused, so nothing changed. */
export class ReleaseFailedError extends AppError {
  constructor(readonly problems: ReleaseProblem[]) {
    super('RELEASE_FAILED', `${problems.length} item(s) of the release were refused; nothing changed.`, { problems });
  }
}

/** The permission resource whose `publish` flag an item needs. */
export const permissionOfItem = (resourceType: ReleaseResourceType) =>
  resourceType === 'content' ? ('content' as const) : ('contentTypes' as const);

/** Checks that the caller may publish every kind of resource the release holds (403 otherwise). */
export type PublishRights = (resources: ReturnType<typeof permissionOfItem>[]) => Promise<void>;

/** Thrown to roll a validation's transaction back: it applies the items exactly as a publish would, then undoes them. */
class ValidationDone extends Error {
  constructor(readonly problems: ReleaseProblem[]) {
    super('validation done');
  }
}

export class ReleaseService {
  constructor(
    private readonly content: ContentService,
    private readonly contentTypes = new ContentTypeService(),
  ) {}

  list(em: EntityManager, scope: ProjectScope, args: ReleaseListArgs) {
    const where: Record<string, unknown> = { organizationId: scope.organizationId, projectId: scope.projectId };
    if (args.status) where.status = args.status;
    return keysetPage(em, Release, { where, sortField: 'createdAt', direction: 'desc', args });
  }

  async get(em: EntityManager, scope: ProjectScope, id: string, lock = false): Promise<Release> {
    const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
    const release = await em.findOne(Release, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!release) throw new NotFoundError('Release', id);
    return release;
  }

  create(em: EntityManager, scope: ProjectScope, input: ReleaseInput, actorId: string): Promise<Release> {
    const name = requireName(input.name ?? '');
    const items = validItems(input.items ?? []);
    return em.transactional(async (tx) => {
      const release = tx.create(Release, {
        ...scope,
        name,
        description: input.description ?? null,
        items,
        createdById: actorId,
      });
      recordEvent(tx, { resourceType: 'releases', action: 'created', resourceId: release.id, ...scope, actorId });
      return release;
    });
  }

  /** Only the members given change; a failed release is open again once edited. */
  update(em: EntityManager, scope: ProjectScope, id: string, input: ReleaseInput, actorId: string): Promise<Release> {
    const name = input.name === undefined || input.name === null ? undefined : requireName(input.name);
    const items = input.items === undefined || input.items === null ? undefined : validItems(input.items);
    return em.transactional(async (tx) => {
      const release = await this.get(tx, scope, id, true);
      assertUnpublished(release, ReleaseStatus.open);
      if (name !== undefined) release.name = name;
      if (input.description !== undefined) release.description = input.description;
      if (items !== undefined) release.items = items;
      release.status = ReleaseStatus.open;
      recordEvent(tx, { resourceType: 'releases', action: 'updated', resourceId: id, ...scope, actorId });
      return release;
    });
  }

  /** Open and failed releases only; their pending schedules are cancelled with them. */
  delete(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<Release> {
    return em.transactional(async (tx) => {
      // Schedules first: the schedule worker holds a schedule, then takes its release, so this order can't deadlock.
      await cancelPendingSchedules(tx, 'releases', id);
      const release = await this.get(tx, scope, id, true);
      assertUnpublished(release, 'deleted');
      tx.remove(release);
      recordEvent(tx, { resourceType: 'releases', action: 'deleted', resourceId: id, ...scope, actorId });
      return release;
    });
  }

  /** What a publish would refuse now, found by applying the items as a publish does and rolling all of it back. */
  async validate(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<ReleaseProblem[]> {
    try {
      await em.transactional(
        async (tx) => {
          const release = await this.get(tx, scope, id, true);
          throw new ValidationDone(await this.apply(tx, scope, release, actorId));
        },
        { flushMode: FlushMode.COMMIT },
      );
    } catch (err) {
      if (err instanceof ValidationDone) return err.problems;
      throw err;
    }
    return [];
  }

  /**
   * Applies every item in one transaction, then records `releases.published`. Any refused item (RELEASE_FAILED)
   * rolls everything back: the content types' changes and events are flushed only once every item was accepted
   * (FlushMode.COMMIT); the entries' rows, versions and events are written before, in statements the rollback undoes
   * and that no cache hears of before the commit. So a refused release records no event and nothing it would have
   * changed is dropped from caches. `mayPublish` runs
   * under the release's row lock, on the items being published.
   */
  publish(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    actorId: string,
    mayPublish: PublishRights,
  ): Promise<Release> {
    return em.transactional(
      async (tx) => {
        const release = await this.get(tx, scope, id, true);
        assertUnpublished(release, ReleaseStatus.published);
        // An empty release still needs a publisher: it is checked as content.
        const kinds = release.items.length ? release.items.map((item) => item.resourceType) : ['content' as const];
        await mayPublish([...new Set(kinds.map(permissionOfItem))]);
        const problems = await this.apply(tx, scope, release, actorId);
        if (problems.length > 0) throw new ReleaseFailedError(problems);
        Object.assign(release, { status: ReleaseStatus.published, publishedAt: new Date() });
        recordEvent(tx, { resourceType: 'releases', action: 'published', resourceId: id, ...scope, actorId });
        const entries = release.items.filter((item) => item.resourceType === 'content');
        await this.content.refreshPublished(
          tx,
          entries.map((item) => item.resourceId),
        );
        return release;
      },
      { flushMode: FlushMode.COMMIT },
    );
  }

  /** A scheduled publish was refused: the release is marked `failed` (its own change, with its own event). */
  async markFailed(tx: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<void> {
    const release = await this.get(tx, scope, id, true);
    if (release.status === ReleaseStatus.published) return;
    release.status = ReleaseStatus.failed;
    recordEvent(tx, { resourceType: 'releases', action: 'updated', resourceId: id, ...scope, actorId });
  }

  /**
   * Content types first (a type goes live before the entries that follow it), then entries, each kind locked in one
   * statement in id order and applied in the release's order; every refused item becomes a problem.
   */
  private async apply(
    tx: EntityManager,
    scope: ProjectScope,
    release: Release,
    actorId: string,
  ): Promise<ReleaseProblem[]> {
    const problems: ReleaseProblem[] = [];
    for (const resourceType of ['content-types', 'content'] as const) {
      const items = release.items
        .filter((item) => item.resourceType === resourceType)
        .map((item) => ({ id: item.resourceId, action: item.action }));
      if (items.length === 0) continue;
      const service = resourceType === 'content' ? this.content : this.contentTypes;
      for (const outcome of await service.transitionMany(tx, scope, items, actorId)) {
        if (outcome.error)
          problems.push({
            resourceType,
            resourceId: outcome.id,
            code: outcome.error.code,
            message: outcome.error.message,
          });
      }
    }
    return problems;
  }
}

/** A published release can no longer change (409 INVALID_STATUS_TRANSITION). */
function assertUnpublished(release: Release, requested: string): void {
  if (release.status === ReleaseStatus.published) throw new InvalidStatusTransitionError(release.status, requested);
}

/** 422 VALIDATION_FAILED with one entry per bad member: at most 1,000 items, each well formed, one per resource. */
function validItems(input: ReleaseItemInput[]): ReleaseItem[] {
  const errors: FieldError[] = [];
  if (input.length > MAX_RELEASE_ITEMS)
    throw new ValidationFailedError([{ path: '/items', message: `must hold at most ${MAX_RELEASE_ITEMS} items` }]);
  const seen = new Set<string>();
  input.forEach((item, i) => {
    if (!RELEASE_RESOURCE_TYPES.includes(item.resourceType as never))
      errors.push({ path: `/items/${i}/resourceType`, message: 'must be `content` or `content-types`' });
    if (!item.resourceId) errors.push({ path: `/items/${i}/resourceId`, message: 'is required' });
    if (!RELEASE_ACTIONS.includes(item.action as never))
      errors.push({ path: `/items/${i}/action`, message: 'must be `publish` or `unpublish`' });
    const key = `${item.resourceType} ${item.resourceId}`;
    if (seen.has(key))
      errors.push({ path: `/items/${i}/resourceId`, message: 'already has an action in this release' });
    seen.add(key);
  });
  if (errors.length > 0) throw new ValidationFailedError(errors);
  return input.map((item) => ({
    resourceType: item.resourceType as ReleaseResourceType,
    resourceId: item.resourceId!,
    action: item.action as ReleaseItem['action'],
  }));
}
