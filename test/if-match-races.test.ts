// Black-box: If-Match is atomic on every update and delete: two requests holding the same revision never both succeed.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 6);
const ORG = '/app/v1/organizations/default';
const base = `/app/v1${PROJECT}`;

interface Kind {
  name: string;
  /** Creates a fresh resource; returns its path. */
  create(): Promise<string>;
  /** The body of an update (PUT), or none when the kind's change is `change`. */
  update?: () => unknown;
  /** The kind's other guarded change, when it has no PUT/DELETE pair (API keys: revoke). */
  change?: (path: string, etag: string) => Promise<{ status: number; body: any }>;
}

describe('If-Match races', () => {
  const fx = useService({ env: { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '10000000' } });
  const call = (method: string, path: string, body?: unknown, ifMatch?: string) =>
    fx.api.call(method, path, { token: fx.token, body, headers: ifMatch ? { 'if-match': ifMatch } : {} });
  const created = async (path: string, body: unknown): Promise<string> => {
    const res = await call('POST', path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return `${path}/${res.body.id}`;
  };
  let memberRole: string | undefined;
  const kinds: Kind[] = [
    {
      name: 'tag',
      create: () => created(`${base}/tags`, { name: `t-${randomUUID()}` }),
      update: () => ({ name: `t-${randomUUID()}` }),
    },
    {
      name: 'folder',
      create: () => created(`${base}/folders`, { name: `f-${randomUUID()}` }),
      update: () => ({ name: `f-${randomUUID()}` }),
    },
    {
      name: 'saved search',
      create: () =>
        created(`${base}/saved-searches`, {
          name: `s-${randomUUID()}`,
          query: { filter: { status: { eq: 'published' } } },
        }),
      update: () => ({ name: `s-${randomUUID()}` }),
    },
    {
      name: 'role',
      create: () => created(`${ORG}/roles`, { name: `r-${randomUUID()}`, permissions: { content: { read: true } } }),
      update: () => ({ name: `r-${randomUUID()}` }),
    },
    {
      name: 'user',
      create: async () => {
        memberRole ??= (
          await call('POST', `${ORG}/roles`, {
            name: `member-${randomUUID()}`,
            permissions: { content: { read: true } },
          })
        ).body.id;
        return created(`${ORG}/users`, {
          email: `${randomUUID()}@example.com`,
          name: 'U',
          password: 'grey-otter-kettle-41',
          roleId: memberRole,
        });
      },
      update: () => ({ name: `U ${randomUUID().slice(0, 8)}` }),
    },
    {
      name: 'API key',
      create: () => created(`${base}/api-keys`, { name: `k-${randomUUID()}` }),
      change: (path, etag) => call('POST', `${path}/revoke`, undefined, etag),
    },
  ];

  for (const kind of kinds) {
    it(`${kind.name}: of two requests with the same If-Match exactly one succeeds; the other is 412 with currentRevision`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const path = await kind.create();
        const before = await call('GET', path);
        expect(before.status).toBe(200);
        const etag = `"${before.body.revision}"`;
        // An update racing a delete, sent in either order (API keys: two revocations).
        const requests = kind.change
          ? [() => kind.change!(path, etag), () => kind.change!(path, etag)]
          : [() => call('PUT', path, kind.update!(), etag), () => call('DELETE', path, undefined, etag)];
        if (round % 2) requests.reverse();
        const answers = await Promise.all(requests.map((send) => send()));
        const won = answers.filter((a) => a.status === 200);
        expect(won.length, JSON.stringify(answers.map((a) => [a.status, a.body]))).toBe(1);
        const [lost] = answers.filter((a) => a.status !== 200);
        const after = await call('GET', path);
        if (after.status === 404) {
          // The delete won: the loser found the row gone (404), or saw its revision move on (412).
          expect([404, 412]).toContain(lost.status);
        } else {
          expect(lost.status, JSON.stringify(lost.body)).toBe(412);
          expect(lost.body.error).toMatchObject({
            code: 'PRECONDITION_FAILED',
            details: { currentRevision: after.body.revision },
          });
          expect(after.body.revision).toBeGreaterThan(before.body.revision);
        }
      }
    }, 120_000);
  }
});
