// Project rules: tenancy-scoped reads and writes (a project-scoped token sees its project only), each write with its event.
import { NotFoundError } from '@cp/errors';
import { offsetPage, type OffsetArgs, type UserPrincipal, requireName } from '@cp/graphql';
import { recordEvent } from '@cp/db';
import { checkedLocales } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, raw } from '@mikro-orm/core';
import { ApiKey, ApiKeyStatus } from '../api-key/api-key.entity';
import type { CreateProjectInput, UpdateProjectInput } from './project.inputs';
import { Project } from './project.entity';

export class ProjectService {
  list(em: EntityManager, caller: UserPrincipal, page: OffsetArgs) {
    const only = caller.projectId === undefined ? {} : { id: caller.projectId };
    return offsetPage(em, Project, { organizationId: caller.organizationId, deletedAt: null, ...only }, page);
  }

  /** `lock` (inside a transaction, before recording an event): the event's order follows the commits (recordEvent). */
  async get(em: EntityManager, caller: UserPrincipal, id: string, lock = false): Promise<Project> {
    const outOfScope = caller.projectId !== undefined && caller.projectId !== id;
    const where = { id, organizationId: caller.organizationId, deletedAt: null };
    const project = outOfScope
      ? null
      : await em.findOne(Project, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!project) throw new NotFoundError('Project', id);
    return project;
  }

  async create(
    em: EntityManager,
    organizationId: string,
    input: CreateProjectInput,
    actorId: string,
  ): Promise<Project> {
    const name = requireName(input.name);
    const locales = input.locales && checkedLocales(input.locales);
    return em.transactional(async (tx) => {
      const project = tx.create(Project, {
        organizationId,
        name,
        description: input.description ?? null,
        ...(locales && { locales }),
      });
      recordEvent(tx, {
        resourceType: 'projects',
        action: 'created',
        resourceId: project.id,
        organizationId,
        projectId: project.id,
        actorId,
      });
      return project;
    });
  }

  async update(em: EntityManager, caller: UserPrincipal, id: string, input: UpdateProjectInput): Promise<Project> {
    const name = input.name == null ? undefined : requireName(input.name);
    const locales = input.locales && checkedLocales(input.locales);
    return em.transactional(async (tx) => {
      const project = await this.get(tx, caller, id, true);
      if (name !== undefined) project.name = name;
      if (locales) project.locales = locales;
      if (input.description !== undefined) project.description = input.description;
      recordEvent(tx, {
        resourceType: 'projects',
        action: 'updated',
        resourceId: id,
        organizationId: caller.organizationId,
        projectId: id,
        actorId: caller.userId,
      });
      return project;
    });
  }

  /** Soft delete: the project's resources become unreachable (guards check existence) and its keys are revoked. */
  async delete(em: EntityManager, caller: UserPrincipal, id: string): Promise<Project> {
    return em.transactional(async (tx) => {
      const project = await this.get(tx, caller, id, true);
      project.deletedAt = new Date();
      await tx.nativeUpdate(
        ApiKey,
        { organizationId: caller.organizationId, projectId: id },
        { status: ApiKeyStatus.revoked, revision: raw('revision + 1') },
      );
      recordEvent(tx, {
        resourceType: 'projects',
        action: 'deleted',
        resourceId: id,
        organizationId: caller.organizationId,
        projectId: id,
        actorId: caller.userId,
      });
      return project;
    });
  }
}
