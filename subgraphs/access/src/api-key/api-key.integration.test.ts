import { ApiKeyLookup, PrincipalCache } from '@cp/auth';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../bootstrap';
import { accessDatabase } from '../subgraph';
import { ApiKey, ApiKeyScope } from './api-key.entity';
import { ApiKeyService } from './api-key.service';

const scope = { organizationId: 'default', projectId: 'default' };

describe.each(['postgres', 'pglite'] as const)('API keys on %s', (kind) => {
  let db: TestDatabase;
  const service = new ApiKeyService();
  /** `@cp/auth`'s key lookup on this module's table, without a cache (as on a host that gets no access events). */
  const keys = new ApiKeyLookup(new PrincipalCache(0));
  beforeAll(async () => {
    db = await openTestDatabase(kind, [accessDatabase]);
    await bootstrap(db.orm.em.fork(), { email: 'admin@example.com', password: 'pw-123456' });
  });
  afterAll(() => db?.destroy());

  it('authenticates a created key as a read-only principal of its project, and refuses it once revoked', async () => {
    const created = await service.create(db.orm.em.fork(), scope, { name: 'site' }, 'user-1');
    const principal = await keys.authenticate(db.orm.em.fork(), created.key);
    expect(principal).toEqual({ kind: 'apiKey', keyId: created.id, ...scope, scope: 'published' });
    await service.revoke(db.orm.em.fork(), scope, created.id, 'user-1');
    await expect(keys.authenticate(db.orm.em.fork(), created.key)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(
      service.revoke(db.orm.em.fork(), { ...scope, projectId: 'elsewhere' }, created.id, 'user-1'),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("carries a preview key's scope into its principal", async () => {
    const created = await service.create(
      db.orm.em.fork(),
      scope,
      { name: 'preview', scope: ApiKeyScope.preview },
      'user-1',
    );
    expect(created.scope).toBe('preview');
    expect(await keys.authenticate(db.orm.em.fork(), created.key)).toMatchObject({
      keyId: created.id,
      scope: 'preview',
    });
  });

  it('writes lastUsed off the request path, in batches, at most once a minute per key', async () => {
    const created = await service.create(db.orm.em.fork(), scope, { name: 'busy' }, 'user-1');
    const fresh = new ApiKeyLookup(new PrincipalCache(0));
    for (let i = 0; i < 5; i++) await fresh.authenticate(db.orm.em.fork(), created.key);
    // Nothing written while requests run: the recorder writes on its timer (or shutdown).
    expect((await db.orm.em.fork().findOneOrFail(ApiKey, { id: created.id })).lastUsed).toBeNull();
    await fresh.lastUsed.flush();
    const first = (await db.orm.em.fork().findOneOrFail(ApiKey, { id: created.id })).lastUsed;
    expect(first).toBeInstanceOf(Date);
    await fresh.authenticate(db.orm.em.fork(), created.key);
    await fresh.lastUsed.flush();
    // Another replica (a new service instance) also skips: the stored value is under a minute old.
    const other = new ApiKeyLookup(new PrincipalCache(0));
    await other.authenticate(db.orm.em.fork(), created.key);
    await other.lastUsed.flush();
    const second = (await db.orm.em.fork().findOneOrFail(ApiKey, { id: created.id })).lastUsed;
    expect(second?.getTime()).toBe(first?.getTime());
  });

  it('answers cached keys without the database until an access event drops them', async () => {
    const created = await service.create(db.orm.em.fork(), scope, { name: 'cached' }, 'user-1');
    const cache = new PrincipalCache(60_000);
    const cached = new ApiKeyLookup(cache);
    expect(await cached.authenticate(db.orm.em.fork(), created.key)).toMatchObject({ keyId: created.id });
    await service.revoke(db.orm.em.fork(), scope, created.id, 'user-1');
    // Revoked in the database, but this replica has not heard of it yet: the entry still answers.
    expect(await cached.authenticate(db.orm.em.fork(), created.key)).toMatchObject({ keyId: created.id });
    // Another kind of event drops nothing; the key's own event drops it.
    cache.invalidate({ resourceType: 'content', resourceId: created.id, organizationId: scope.organizationId });
    expect(await cached.authenticate(db.orm.em.fork(), created.key)).toMatchObject({ keyId: created.id });
    cache.invalidate({ resourceType: 'api-keys', resourceId: created.id, organizationId: scope.organizationId });
    await expect(cached.authenticate(db.orm.em.fork(), created.key)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
