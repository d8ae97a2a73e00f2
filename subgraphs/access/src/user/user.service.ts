// User rules: no privilege escalation, tokens revoked on password change or removal, the Owner role never left empty.
import { LockMode } from '@mikro-orm/core';
import { AppError, NotFoundError, ValidationFailedError } from '@cp/errors';
import { isUniqueViolation, recordEvent } from '@cp/db';
import { offsetPage, type OffsetArgs, type UserPrincipal, requireName } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword } from '@cp/auth';
import { OWNER_ROLE, Role } from '../role/role.entity';
import { assertWithinCaller } from '../shared/authorize-admin';
import { User } from './user.entity';
import type { CreateUserInput, UpdateUserInput } from './user.inputs';
import { assertAcceptablePassword } from './password-policy';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class UserService {
  list(em: EntityManager, organizationId: string, page: OffsetArgs) {
    return offsetPage(em, User, { organizationId }, page);
  }

  /** `lock` (inside a transaction): the row stays ours until it ends, so If-Match is compared with what we change. */
  async get(em: EntityManager, organizationId: string, id: string, lock = false): Promise<User> {
    const user = await em.findOne(User, { id, organizationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!user) throw new NotFoundError('User', id);
    return user;
  }

  async create(em: EntityManager, caller: UserPrincipal, input: CreateUserInput): Promise<User> {
    const email = checkEmail(input.email);
    const name = requireName(input.name);
    await assertAcceptablePassword(input.password, [email, name]);
    const passwordHash = await hashPassword(input.password);
    return this.write(em, email, async (tx) => {
      await this.grantableRole(tx, caller, input.roleId);
      const user = tx.create(User, {
        organizationId: caller.organizationId,
        email,
        name,
        roleId: input.roleId,
        passwordHash,
      });
      recordEvent(tx, {
        resourceType: 'users',
        action: 'created',
        resourceId: user.id,
        organizationId: caller.organizationId,
        actorId: caller.userId,
      });
      return user;
    });
  }

  async update(em: EntityManager, caller: UserPrincipal, id: string, input: UpdateUserInput): Promise<User> {
    const email = input.email == null ? undefined : checkEmail(input.email);
    const name = input.name == null ? undefined : requireName(input.name);
    if (input.password != null) await assertAcceptablePassword(input.password, [email ?? '', name ?? '']);
    const passwordHash = input.password == null ? undefined : await hashPassword(input.password);
    return this.write(em, email ?? '', async (tx) => {
      const user = await this.actOn(tx, caller, id);
      if (input.roleId != null && input.roleId !== user.roleId) {
        await this.grantableRole(tx, caller, input.roleId);
        await this.keepAnOwner(tx, user);
        user.roleId = input.roleId;
      }
      if (email !== undefined) user.email = email;
      if (name !== undefined) user.name = name;
      if (passwordHash !== undefined) {
        user.passwordHash = passwordHash;
        // Every token issued before this instant is refused from now on (checked on each request).
        user.tokensValidAfter = new Date();
      }
      recordEvent(tx, {
        resourceType: 'users',
        action: 'updated',
        resourceId: id,
        organizationId: caller.organizationId,
        actorId: caller.userId,
      });
      return user;
    });
  }

  /** Removing the row revokes the user's tokens: authentication looks the user up on every request. */
  async delete(em: EntityManager, caller: UserPrincipal, id: string): Promise<User> {
    return em.transactional(async (tx) => {
      const user = await this.actOn(tx, caller, id);
      await this.keepAnOwner(tx, user);
      tx.remove(user);
      recordEvent(tx, {
        resourceType: 'users',
        action: 'deleted',
        resourceId: id,
        organizationId: caller.organizationId,
        actorId: caller.userId,
      });
      return user;
    });
  }

  /** A user whose role holds flags the caller lacks is out of the caller's reach (else it could take that account over). */
  private async actOn(em: EntityManager, caller: UserPrincipal, id: string): Promise<User> {
    const user = await this.get(em, caller.organizationId, id, true);
    const role = await em.findOne(Role, { id: user.roleId, organizationId: caller.organizationId });
    if (role) assertWithinCaller(caller, role.permissions);
    return user;
  }

  private async grantableRole(em: EntityManager, caller: UserPrincipal, roleId: string): Promise<Role> {
    const role = await em.findOne(Role, { id: roleId, organizationId: caller.organizationId });
    if (!role) throw new ValidationFailedError([{ path: '/roleId', message: 'no such role in this organization' }]);
    assertWithinCaller(caller, role.permissions);
    return role;
  }

  /** The organization must keep one user with the Owner role, so it stays administrable (409 CONFLICT). */
  private async keepAnOwner(em: EntityManager, user: User): Promise<void> {
    const owner = await em.findOne(Role, { organizationId: user.organizationId, name: OWNER_ROLE });
    if (!owner || user.roleId !== owner.id) return;
    // Row locks serialise two concurrent removals of the last two owners.
    const owners = await em
      .getConnection()
      .execute(
        'select "id" from "user" where "organization_id" = ? and "role_id" = ? for update',
        [user.organizationId, owner.id],
        'all',
        em.getTransactionContext(),
      );
    if (owners.length <= 1)
      throw new AppError('CONFLICT', 'The Owner role must keep at least one user.', { roleId: owner.id });
  }

  private async write<T>(em: EntityManager, email: string, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await em.transactional(work);
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError('NAME_TAKEN', 'A user with this email already exists.', { resource: 'user', name: email });
      throw err;
    }
  }
}

/** Trimmed and lower-cased; 422 on `/email` unless it looks like an address. */
export function checkEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 255)
    throw new ValidationFailedError([{ path: '/email', message: 'must be an email address' }]);
  return email;
}
