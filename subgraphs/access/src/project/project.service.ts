// Project rules: tenancy-scoped reads and creation with its event.
import { NotFoundError, ValidationFailedError } from '@cp/errors';
import { offsetPage, type OffsetArgs } from '@cp/graphql';
import { recordEvent } from '@cp/db';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CreateProjectInput } from './project.inputs';
import { Project } from './project.entity';

export class ProjectService {
  list(em: EntityManager, organizationId: string, page: OffsetArgs) {
    return offsetPage(em, Project, { organizationId, deletedAt: null }, page);
  }

  async get(em: EntityManager, organizationId: string, id: string): Promise<Project> {
    const project = await em.findOne(Project, { id, organizationId, deletedAt: null });
    if (!project) throw new NotFoundError('Project', id);
    return project;
  }

  async create(em: EntityManager, organizationId: string, input: CreateProjectInput, actorId: string): Promise<Project> {
    if (!input.name.trim()) throw new ValidationFailedError([{ path: '/name', message: 'must not be empty' }]);
    return em.transactional(async (tx) => {
      const project = tx.create(Project, { organizationId, name: input.name.trim(), description: input.description ?? null });
      recordEvent(tx, { resourceType: 'projects', action: 'created', resourceId: project.id, organizationId, actorId });
      return project;
    });
  }
}
