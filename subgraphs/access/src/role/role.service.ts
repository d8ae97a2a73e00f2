// Role rules: validated permissions, no privilege escalation, the Owner role kept intact, each write with its event.
import { LockMode } from '@mikro-orm/core';
import { AppError, NotFoundError } from '@cp/errors';
import { isUniqueViolation, recordEvent } from '@cp/db';
import { offsetPage, type OffsetArgs, type UserPrincipal, requireName } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { assertWithinCaller } from '../shared/authorize-admin';
import { User } from '../user/user.entity';
import { validatePermissions } from './permissions';
import { OWNER_ROLE, Role } from './role.entity';
import type { CreateRoleInput, UpdateRoleInput } from './role.inputs';

export class RoleService {
  list(em: EntityManager, organizationId: string, page: OffsetArgs) {
    return offsetPage(em, Role, { organizationId }, page);
  }

  /** `lock` (inside a transaction): the row stays ours until it ends, so If-Match is compared with what we change. */
  async get(em: EntityManager, organizationId: string, id: string, lock = false): Promise<Role> {
    const role = await em.findOne(Role, { id, organizationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!role) throw new NotFoundError('Role', id);
    return role;
  }

  async create(em: EntityManager, caller: UserPrincipal, input: CreateRoleInput): Promise<Role> {
    const name = requireName(input.name);
    const permissions = validatePermissions(input.permissions);
    assertWithinCaller(caller, permissions);
    return this.write(em, name, async (tx) => {
      const role = tx.create(Role, {
        organizationId: caller.organizationId,
        name,
        description: input.description ?? null,
        permissions,
      });
      recordEvent(tx, {
        resourceType: 'roles',
        action: 'created',
        resourceId: role.id,
        organizationId: caller.organizationId,
        actorId: caller.userId,
      });
      return role;
    });
  }

  async update(em: EntityManager, caller: UserPrincipal, id: string, input: UpdateRoleInput): Promise<Role> {
    const name = input.name === undefined || input.name === null ? undefined : requireName(input.name);
    const permissions =
      input.permissions === undefined || input.permissions === null
        ? undefined
        : validatePermissions(input.permissions);
    return this.write(em, name ?? '', async (tx) => {
      const role = await this.get(tx, caller.organizationId, id, true);
      // Neither a role above the caller nor a grant above the caller: both would escalate.
      assertWithinCaller(caller, role.permissions);
      if (permissions) assertWithinCaller(caller, permissions);
      if (role.name === OWNER_ROLE && ((name !== undefined && name !== OWNER_ROLE) || permissions !== undefined)) {
        throw new AppError('CONFLICT', 'The Owner role keeps its name and every permission.', { roleId: id });
      }
      if (name !== undefined) role.name = name;
      if (input.description !== undefined) role.description = input.description;
      if (permissions) role.permissions = permissions;
      recordEvent(tx, {
        resourceType: 'roles',
        action: 'updated',
        resourceId: id,
        organizationId: caller.organizationId,
        actorId: caller.userId,
      });
      return role;
    });
  }

  /** A role still given to users, or the Owner role, cannot be deleted (409 CONFLICT). */
  async delete(em: EntityManager, caller: UserPrincipal, id: string): Promise<Role> {
    return em.transactional(async (tx) => {
      const role = await this.get(tx, caller.organizationId, id, true);
      assertWithinCaller(caller, role.permissions);
      if (role.name === OWNER_ROLE) throw new AppError('CONFLICT', 'The Owner role cannot be deleted.', { roleId: id });
      const users = await tx.count(User, { organizationId: caller.organizationId, roleId: id });
      if (users > 0) throw new AppError('CONFLICT', 'The role is still given to users.', { roleId: id, users });
      tx.remove(role);
      recordEvent(tx, {
        resourceType: 'roles',
        action: 'deleted',
        resourceId: id,
        organizationId: caller.organizationId,
        actorId: caller.userId,
      });
      return role;
    });
  }

  private async write<T>(em: EntityManager, name: string, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await em.transactional(work);
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError('NAME_TAKEN', `A role named "${name}" already exists.`, { resource: 'role', name });
      throw err;
    }
  }
}
