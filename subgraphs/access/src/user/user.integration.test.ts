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
    const limited: UserPrincipal = { ...owner, userId: 'limited', permissions: { users: { create: true, update: true }, content: { read: true } } };
    await expect(roles.create(db.orm.em.fork(), limited, { name: 'Publisher', permissions: { content: { publish: true } } })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { resource: 'content', action: 'publish' },
    });
    const ownerRole = await db.orm.em.fork().findOneOrFail(Role, { name: 'Owner' });
    await expect(users.create(db.orm.em.fork(), limited, { email: 'e@x.example', name: 'E', password: 'password-1', roleId: ownerRole.id })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(users.update(db.orm.em.fork(), limited, owner.userId, { name: 'Taken over' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('keeps one Owner user, and revokes tokens on a password change', async () => {
    await expect(users.delete(db.orm.em.fork(), owner, owner.userId)).rejects.toMatchObject({ code: 'CONFLICT' });
    const reader = await roles.create(db.orm.em.fork(), owner, { name: 'Reader', permissions: { content: { read: true } } });
    await expect(users.update(db.orm.em.fork(), owner, owner.userId, { roleId: reader.id })).rejects.toMatchObject({ code: 'CONFLICT' });
    const before = Date.now();
    await users.update(db.orm.em.fork(), owner, owner.userId, { password: 'another-password' });
    const admin = await db.orm.em.fork().findOneOrFail(User, { id: owner.userId });
    expect(admin.tokensValidAfter.getTime()).toBeGreaterThanOrEqual(before);
    const rows: { type: string }[] = await db.orm.em.getConnection().execute('select type from event where resource_id = ?', [owner.userId]);
    expect(rows.map((r) => r.type)).toContain('users.updated');
  });
});
