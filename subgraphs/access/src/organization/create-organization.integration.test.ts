// Creating tenants concurrently: one creation wins each id and each email, the others are NAME_TAKEN and leave nothing.
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../role/role.entity';
import { accessDatabase } from '../subgraph';
import { User } from '../user/user.entity';
import { createOrganization } from './create-organization';
import { Organization } from './organization.entity';

const PASSWORD = 'grey-otter-kettle-41';

describe('createOrganization on postgres', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase('postgres', [accessDatabase]);
  });
  afterAll(() => db?.destroy());

  const create = (id: string, email: string) =>
    createOrganization(db.orm.em.fork(), { id, name: id, owner: { email, name: 'O', password: PASSWORD } });
  const outcomes = (attempts: Promise<unknown>[]) =>
    Promise.allSettled(attempts).then((all) =>
      all.map((r) => (r.status === 'fulfilled' ? 'created' : (r.reason as { details: { resource: string } }).details)),
    );

  it('gives an id and an email to one of several concurrent creations', async () => {
    const sameId = await outcomes([1, 2, 3, 4].map((i) => create('race', `race${i}@example.com`)));
    expect(sameId.filter((o) => o === 'created')).toHaveLength(1);
    expect(sameId.filter((o) => o !== 'created')).toEqual(Array(3).fill({ resource: 'organization', name: 'race' }));
    const sameEmail = await outcomes([1, 2, 3, 4].map((i) => create(`mail${i}`, 'Same@Example.com')));
    expect(sameEmail.filter((o) => o === 'created')).toHaveLength(1);
    expect(sameEmail.filter((o) => o !== 'created')).toEqual(
      Array(3).fill({ resource: 'user', name: 'same@example.com' }),
    );
    // The losers left no organization, role or user behind.
    const em = db.orm.em.fork();
    const orgs = await em.find(Organization, { id: { $in: ['race', 'mail1', 'mail2', 'mail3', 'mail4'] } });
    expect(orgs).toHaveLength(2);
    const ids = orgs.map((o) => o.id);
    expect(await em.count(Role, { organizationId: { $nin: ids }, name: 'Owner' })).toBe(0);
    expect(await em.count(User, { organizationId: { $nin: ids } })).toBe(0);
  });
});
