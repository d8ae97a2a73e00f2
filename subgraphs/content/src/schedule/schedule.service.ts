// Schedule rules: validation of new schedules, the soonest-first list, cancellation, and running a due one.
import {
  AppError,
  InvalidStatusTransitionError,
  NotFoundError,
  ValidationFailedError,
  type FieldError,
} from '@cp/errors';
import { BadRequestError } from '@cp/errors';
import { EntityStatus, keysetPage, type Permissions, type ProjectScope } from '@cp/graphql';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ContentTypeService } from '../content-type/content-type.service';
import { ContentType } from '../content-type/content-type.entity';
import { Content } from '../content/content.entity';
import { ContentService } from '../content/content.service';
import {
  Schedule,
  SCHEDULE_ACTIONS,
  SCHEDULE_RESOURCE_TYPES,
  ScheduleStatus,
  type ScheduleAction,
  type ScheduleResourceType,
} from './schedule.entity';
import type { CreateScheduleInput, ScheduleListArgs } from './schedule.inputs';
import { ReleaseStatus } from '../release/release.entity';
import { ReleaseService } from '../release/release.service';

export interface ValidSchedule {
  resourceType: ScheduleResourceType;
  resourceId: string;
  action: ScheduleAction;
  at: Date;
}

/**
 * The permission resource whose `publish` flag creating or cancelling a schedule needs: a release's is `content`
 * (editing a release needs content rights); when it runs, each of its items needs its own resource's.
 */
export const permissionOf = (resourceType: ScheduleResourceType) =>
  resourceType === 'content-types' ? 'contentTypes' : 'content';

export class ScheduleService {
  private readonly content = new ContentService();
  private readonly contentTypes = new ContentTypeService();
  private readonly releases = new ReleaseService(this.content, this.contentTypes);

  /** 422 VALIDATION_FAILED with one entry per bad member; `at` must be an ISO-8601 instant within the coming year. */
  validate(input: CreateScheduleInput, now = Date.now()): ValidSchedule {
    const errors: FieldError[] = [];
    if (!SCHEDULE_RESOURCE_TYPES.includes(input.resourceType as never))
      errors.push({ path: '/resourceType', message: 'must be `content`, `content-types` or `releases`' });
    if (!input.resourceId) errors.push({ path: '/resourceId', message: 'is required' });
    if (input.resourceType === 'releases' && input.action !== 'publish')
      errors.push({ path: '/action', message: 'must be `publish` for a release' });
    else if (!SCHEDULE_ACTIONS.includes(input.action as never))
      errors.push({ path: '/action', message: 'must be `publish` or `unpublish`' });
    // An instant needs a date, a time and a zone: `2026-12-01T09:00:00Z` or with an offset.
    const at = typeof input.at === 'string' ? instant(input.at) : undefined;
    // One calendar year, not a fixed 366 days.
    const yearAhead = new Date(now);
    yearAhead.setUTCFullYear(yearAhead.getUTCFullYear() + 1);
    if (!at) errors.push({ path: '/at', message: 'must be an ISO-8601 instant such as 2030-01-01T09:00:00Z' });
    else if (at.getTime() <= now) errors.push({ path: '/at', message: 'must be in the future' });
    else if (at.getTime() > yearAhead.getTime())
      errors.push({ path: '/at', message: 'must be at most one year ahead' });
    if (errors.length > 0) throw new ValidationFailedError(errors);
    return {
      resourceType: input.resourceType as ScheduleResourceType,
      resourceId: input.resourceId!,
      action: input.action as ScheduleAction,
      at: at!,
    };
  }

  async create(em: EntityManager, scope: ProjectScope, input: ValidSchedule, actorId: string): Promise<Schedule> {
    if (input.resourceType === 'releases') {
      const release = await this.releases.get(em, scope, input.resourceId);
      if (release.status === ReleaseStatus.published)
        throw new InvalidStatusTransitionError(release.status, ReleaseStatus.published);
      const schedule = em.create(Schedule, { ...scope, ...input, createdById: actorId });
      await em.flush();
      return schedule;
    }
    const entity = input.resourceType === 'content' ? Content : ContentType;
    const resource = await em.findOne(entity as typeof Content, {
      id: input.resourceId,
      organizationId: scope.organizationId,
      projectId: scope.projectId,
    });
    if (!resource || resource.status === EntityStatus.deleted)
      throw new NotFoundError(input.resourceType === 'content' ? 'Content' : 'ContentType', input.resourceId);
    const schedule = em.create(Schedule, { ...scope, ...input, createdById: actorId });
    await em.flush();
    return schedule;
  }

  list(em: EntityManager, scope: ProjectScope, args: ScheduleListArgs) {
    if (
      args.resourceType !== undefined &&
      args.resourceType !== null &&
      !SCHEDULE_RESOURCE_TYPES.includes(args.resourceType as never)
    ) {
      throw new BadRequestError('resourceType must be `content`, `content-types` or `releases`.', {
        parameter: 'resourceType',
        value: args.resourceType,
      });
    }
    const where: Record<string, unknown> = { organizationId: scope.organizationId, projectId: scope.projectId };
    if (args.resourceId) where.resourceId = args.resourceId;
    if (args.resourceType) where.resourceType = args.resourceType;
    if (args.status) where.status = args.status;
    return keysetPage(em, Schedule, { where, sortField: 'at', direction: 'asc', args });
  }

  async get(em: EntityManager, scope: ProjectScope, id: string, lock = false): Promise<Schedule> {
    const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
    const schedule = await em.findOne(Schedule, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!schedule) throw new NotFoundError('Schedule', id);
    return schedule;
  }

  /** Only a pending schedule can be cancelled (409 INVALID_STATUS_TRANSITION otherwise); the worker's claim waits on the lock. */
  cancel(em: EntityManager, scope: ProjectScope, id: string): Promise<Schedule> {
    return em.transactional(async (tx) => {
      const schedule = await this.get(tx, scope, id, true);
      if (schedule.status !== ScheduleStatus.pending)
        throw new InvalidStatusTransitionError(schedule.status, ScheduleStatus.cancelled);
      schedule.status = ScheduleStatus.cancelled;
      return schedule;
    });
  }

  /**
   * Runs a claimed schedule inside the claiming transaction: the creator's rights are read now (user and role), the
   * action goes through the normal service (validation, versions, events) in a savepoint, and a refusal is recorded.
   * A release is published with the creator's rights on every kind of resource it holds; when it is refused, nothing
   * it holds changes and the release is marked `failed`.
   */
  async run(tx: EntityManager, schedule: Schedule): Promise<unknown> {
    const scope = { organizationId: schedule.organizationId, projectId: schedule.projectId };
    try {
      // A nested transaction is a savepoint: a refused action rolls back alone, the schedule's outcome still commits.
      if (schedule.resourceType === 'releases') {
        await tx.transactional((inner) =>
          this.releases.publish(inner, scope, schedule.resourceId, schedule.createdById, (resources) =>
            this.assertCreatorMayPublish(tx, schedule, resources),
          ),
        );
      } else {
        await this.assertCreatorMayPublish(tx, schedule, [permissionOf(schedule.resourceType)]);
        const service = schedule.resourceType === 'content' ? this.content : this.contentTypes;
        const act = service[schedule.action].bind(service) as (
          em: EntityManager,
          scope: ProjectScope,
          id: string,
          actorId: string,
        ) => Promise<unknown>;
        await tx.transactional((inner) => act(inner, scope, schedule.resourceId, schedule.createdById));
      }
      Object.assign(schedule, { status: ScheduleStatus.done, error: null });
      return undefined;
    } catch (err) {
      const known = err instanceof AppError;
      if (known && err.code === 'RELEASE_FAILED')
        await this.releases.markFailed(tx, scope, schedule.resourceId, schedule.createdById);
      Object.assign(schedule, {
        status: ScheduleStatus.failed,
        error: {
          code: known ? err.code : 'INTERNAL',
          message: known ? err.message : 'The action failed unexpectedly.',
        },
      });
      // The caller logs unexpected errors; the client sees only the code.
      return known ? undefined : err;
    }
  }

  /** The creator as of now: still in the organization, and its role still holds `publish` on each resource. */
  private async assertCreatorMayPublish(
    tx: EntityManager,
    schedule: Schedule,
    resources: ('content' | 'contentTypes')[],
  ): Promise<void> {
    // The access subgraph owns these tables; all subgraphs share one database (docs/configuration.md), so one read suffices here.
    const rows = await tx
      .getConnection()
      .execute<{ organization_id: string; permissions: Permissions | string }[]>(
        'select u."organization_id", r."permissions" from "user" u join "role" r on r."id" = u."role_id" where u."id" = ?',
        [schedule.createdById],
        'all',
        tx.getTransactionContext(),
      );
    const row = rows[0];
    const permissions =
      row && (typeof row.permissions === 'string' ? (JSON.parse(row.permissions) as Permissions) : row.permissions);
    for (const resource of resources) {
      const flags = permissions?.[resource] as Record<string, boolean | undefined> | undefined;
      if (!row || row.organization_id !== schedule.organizationId || flags?.publish !== true) {
        throw new AppError('FORBIDDEN', `The schedule's creator may no longer ${schedule.action} ${resource}.`, {
          resource,
          action: 'publish',
        });
      }
    }
  }
}

/**
 * An instant needs a date, a time and a zone (`2026-12-01T09:00:00Z`, or with an offset), and a real calendar day:
 * `new Date` would roll `2027-02-30` over into March.
 */
function instant(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
