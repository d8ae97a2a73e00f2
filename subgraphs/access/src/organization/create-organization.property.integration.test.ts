// createOrganization against a model: any sequence of attempts creates exactly the tenants the API's rules allow
// (valid id, name, email, password policy; unused id and email), each owner in its own organization with that
// organization's Owner role, and a refused attempt leaves nothing behind.
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../role/role.entity';
import { accessDatabase } from '../subgraph';
import { User } from '../user/user.entity';
import { createOrganization } from './create-organization';
import { Organization } from './organization.entity';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 8) };
const STRONG = 'grey-otter-kettle-41';

const attempt = fc.record({
  id: fc.constantFrom('a', 'b', 'bad/id', 'c'),
  name: fc.constantFrom('Acme', '  '),
  email: fc.constantFrom('one@x.example', ' One@X.example ', 'two@x.example', 'not-an-email'),
  password: fc.constantFrom(STRONG, 'password1234', 'short'),
});
type Attempt = typeof attempt extends fc.Arbitrary<infer T> ? T : never;

describe('createOrganization (property, postgres)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase('postgres', [accessDatabase]);
  });
  afterAll(() => db?.destroy());

  it('creates exactly what the rules allow, every owner in its own organization', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(attempt, { minLength: 1, maxLength: 5 }), async (attempts) => {
        // Each run in its own namespace of ids and emails (one database for all runs).
        const ns = `r${round++}`;
        const ids = new Set<string>();
        const emails = new Set<string>();
        const outcomes: string[] = [];
        const expected: string[] = [];
        for (const a of attempts as Attempt[]) {
          const id = a.id === 'bad/id' ? a.id : `${ns}-${a.id}`;
          const email = a.email.replace('@', `+${ns}@`);
          const normal = email.trim().toLowerCase();
          const valid =
            a.id !== 'bad/id' && a.name.trim() !== '' && a.email !== 'not-an-email' && a.password === STRONG;
          const want = !valid ? 'VALIDATION_FAILED' : ids.has(id) || emails.has(normal) ? 'NAME_TAKEN' : 'created';
          expected.push(want);
          if (want === 'created') {
            ids.add(id);
            emails.add(normal);
          }
          try {
            const made = await createOrganization(db.orm.em.fork(), {
              id,
              name: a.name,
              owner: { email, name: 'Owner', password: a.password },
            });
            outcomes.push('created');
            expect(made.owner.organizationId).toBe(id);
            expect(made.role.organizationId).toBe(id);
            expect(made.owner.roleId).toBe(made.role.id);
          } catch (err) {
            outcomes.push((err as { code?: string }).code ?? String(err));
          }
        }
        expect(outcomes).toEqual(expected);
        const em = db.orm.em.fork();
        const orgs = await em.find(Organization, { id: { $like: `${ns}-%` } });
        expect(orgs.map((o) => o.id).sort()).toEqual([...ids].sort());
        const users = await em.find(User, { organizationId: { $like: `${ns}-%` } });
        expect(users.map((u) => u.email).sort()).toEqual([...emails].sort());
        const roles = await em.find(Role, { organizationId: { $like: `${ns}-%` } });
        expect(roles.map((r) => [r.organizationId, r.name]).sort()).toEqual([...ids].sort().map((i) => [i, 'Owner']));
        for (const user of users) {
          expect(roles.find((r) => r.id === user.roleId)?.organizationId).toBe(user.organizationId);
        }
      }),
      runs,
    );
  }, 300_000);
});
