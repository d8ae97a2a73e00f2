// Organization rules: a caller sees and changes its own organization only; deletion removes the tenant.
import { NotFoundError } from '@cp/errors';
import { recordEvent } from '@cp/db';
import { offsetPage, type OffsetArgs, type UserPrincipal, requireName } from '@cp/graphql';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../api-key/api-key.entity';
import { Project } from '../project/project.entity';
import { Role } from '../role/role.entity';
import { User } from '../user/user.entity';
import { Organization } from './organization.entity';
import type { UpdateOrganizationInput } from './organization.inputs';

export class OrganizationService {
  list(em: EntityManager, organizationId: string, page: OffsetArgs) {
    return offsetPage(em, Organization, { id: organizationId }, page);
  }

  /** `lock` (inside a transaction, before recording an event): the event's order follows the commits (recordEvent). */
  async get(em: EntityManager, id: string, lock = false): Promise<Organization> {
    const org = await em.findOne(Organization, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!org) throw new NotFoundError('Organization', id);
    return org;
  }

  async update(em: EntityManager, caller: UserPrincipal, input: UpdateOrganizationInput): Promise<Organization> {
    const name = input.name == null ? undefined : requireName(input.name);
    return em.transactional(async (tx) => {
      const org = await this.get(tx, caller.organizationId, true);
      if (name !== undefined) org.name = name;
      recordEvent(tx, {
        resourceType: 'organizations',
        action: 'updated',
        resourceId: org.id,
        organizationId: org.id,
        actorId: caller.userId,
      });
      return org;
    });
  }

  /**
   * Removes the tenant: its keys, users (so every token of it fails), roles and projects (so every project-scoped
   * resource of other subgraphs becomes unreachable: the guards check the project exists).
   */
  async delete(em: EntityManager, caller: UserPrincipal): Promise<Organization> {
    return em.transactional(async (tx) => {
      const org = await this.get(tx, caller.organizationId, true);
      const organizationId = org.id;
      await tx.nativeDelete(ApiKey, { organizationId });
      await tx.nativeDelete(User, { organizationId });
      await tx.nativeDelete(Role, { organizationId });
      await tx.nativeDelete(Project, { organizationId });
      tx.remove(org);
      recordEvent(tx, {
        resourceType: 'organizations',
        action: 'deleted',
        resourceId: organizationId,
        organizationId,
        actorId: caller.userId,
      });
      return org;
    });
  }
}
