import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { allPermissions, type UserPrincipal } from '@cp/graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../bootstrap';
import { Role } from '../role/role.entity';
import { RoleService } from '../role/role.service';
import { accessDatabase } from '../subgraph';
import { User } from './user.entity';
import { UserService } from './user.service';

describe.each(['postgres', 'pglite'] as const)('users and roles on %s', (kind) => {
  let db: TestDatabase;
  let owner: UserPrincipal;
  const users = new UserService();
  const roles = new RoleService();
  beforeAll(async () => {
    db = await openTestDatabase(kind, [accessDatabase]);
    await bootstrap(db.orm.em.fork(), { email: 'admin@example.com', password: 'pw-123456' });
    const admin = await db.orm.em.fork().findOneOrFail(User, { email: 'admin@example.com' });
    owner = { kind: 'user', userId: admin.id, organizationId: 'default', permissions: allPermissions() };
  });
  afterAll(() => db?.destroy());

  it('never lets a caller grant, or act on holders of, flags it lacks', async () => {
    const limited: UserPrincipal = {
      ...owner,
      userId: 'limited',
      permissions: { users: { create: true, update: true }, content: { read: true } },
    };
    await expect(
      roles.create(db.orm.em.fork(), limited, { name: 'Publisher', permissions: { content: { publish: true } } }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { resource: 'content', action: 'publish' },
    });
    const ownerRole = await db.orm.em.fork().findOneOrFail(Role, { name: 'Owner' });
    await expect(
      users.create(db.orm.em.fork(), limited, {
        email: 'e@x.example',
        name: 'E',
        password: 'grey-otter-kettle-41',
        roleId: ownerRole.id,
      }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(users.update(db.orm.em.fork(), limited, owner.userId, { name: 'Taken over' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('keeps one Owner user, and revokes tokens on a password change', async () => {
    await expect(users.delete(db.orm.em.fork(), owner, owner.userId)).rejects.toMatchObject({ code: 'CONFLICT' });
    const reader = await roles.create(db.orm.em.fork(), owner, {
      name: 'Reader',
      permissions: { content: { read: true } },
    });
    await expect(users.update(db.orm.em.fork(), owner, owner.userId, { roleId: reader.id })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const before = Date.now();
    await users.update(db.orm.em.fork(), owner, owner.userId, { password: 'another-quiet-harbour-5' });
    const admin = await db.orm.em.fork().findOneOrFail(User, { id: owner.userId });
    expect(admin.tokensValidAfter.getTime()).toBeGreaterThanOrEqual(before);
    const rows: { type: string }[] = await db.orm.em
      .getConnection()
      .execute('select type from event where resource_id = ?', [owner.userId]);
    expect(rows.map((r) => r.type)).toContain('users.updated');
  });

  it('refuses short, breached, patterned and self-describing passwords with 422 on /password', async () => {
    const ownerRole = await db.orm.em.fork().findOneOrFail(Role, { name: 'Owner' });
    const create = (email: string, password: string) =>
      users.create(db.orm.em.fork(), owner, { email, name: 'Policy', password, roleId: ownerRole.id });
    for (const [password, reason] of [
      ['short-pw-1', 'at least 12 characters'],
      ['password1234', 'too easy to guess'],
      ['iloveyou2024', 'too easy to guess'],
      ['qwertyuiop12', 'too easy to guess'],
      ['aaaaaaaaaaaaaaaa', 'too easy to guess'],
      ['policy.tester@example.com', 'too easy to guess'],
    ]) {
      await expect(create('policy.tester@example.com', password), password).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { errors: [{ path: '/password', message: expect.stringContaining(reason) }] },
      });
    }
    await expect(
      users.update(db.orm.em.fork(), owner, owner.userId, { password: 'password1234' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(create('policy.tester@example.com', 'velvet-quarry-moss-83')).resolves.toMatchObject({
      email: 'policy.tester@example.com',
    });
  });
});
