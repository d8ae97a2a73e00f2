// The access watch: a live stream whose caller lost its right ends; others, and other changes, leave it open.
import { ForbiddenError } from '@cp/errors';
import type { Principal } from '@cp/principal';
import type { MikroORM } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { AccessWatch, type WatchedCaller } from './access-watch';
import { generateKey } from './api-key-secret';
import { createAuthentication } from './authentication';
import { MemoryAccessTables } from './test/memory-tables';

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

function setup() {
  const tables = new MemoryAccessTables();
  const auth = createAuthentication({ auth: { tokenTtlSeconds: 60 } }, new TextEncoder().encode('w'.repeat(40)));
  const orm = { em: { fork: () => tables.em } } as unknown as MikroORM;
  const errors: unknown[] = [];
  const watch = new AccessWatch(
    { orm, auth, projects: { exists: async () => true, locales: async () => undefined } },
    (err) => errors.push(err),
  );
  const stream = (principal: Principal, rest: Partial<WatchedCaller> = {}) => {
    const state = { revoked: false };
    watch.watch({ principal, authorize: async () => undefined, revoke: () => (state.revoked = true), ...rest });
    return state;
  };
  return { tables, auth, watch, stream, errors };
}

describe('AccessWatch', () => {
  it("ends a key's stream once the key is revoked, and leaves other keys' streams open", async () => {
    const { tables, watch, stream } = setup();
    const [mine, other] = [generateKey(), generateKey()];
    const row = { organization_id: 'o1', project_id: 'p1', status: 'active' as const, scope: 'published' as const };
    tables.addKey(mine, { id: 'k1', ...row });
    tables.addKey(other, { id: 'k2', ...row });
    const principal = (keyId: string): Principal => ({
      kind: 'apiKey',
      keyId,
      organizationId: 'o1',
      projectId: 'p1',
      scope: 'published',
    });
    const a = stream(principal('k1'), { credentials: { apiKey: mine } });
    const b = stream(principal('k2'), { credentials: { apiKey: other } });
    watch.changed({ resourceType: 'content', resourceId: 'k1', organizationId: 'o1' });
    watch.changed({ resourceType: 'api-keys', resourceId: 'k1', organizationId: 'o1' });
    await settle();
    expect([a.revoked, b.revoked]).toEqual([false, false]); // still active in the database
    tables.keys.forEach((k) => k.id === 'k1' && (k.status = 'revoked'));
    watch.changed({ resourceType: 'api-keys', resourceId: 'k1', organizationId: 'o1' });
    await settle();
    expect([a.revoked, b.revoked]).toEqual([true, false]);
  });

  it('ends a vouched stream (nothing to re-check) on any change that concerns it, and one its check now refuses', async () => {
    const { watch, stream } = setup();
    const user: Principal = { kind: 'user', userId: 'u1', organizationId: 'o1', permissions: {} };
    const vouched = stream(user);
    const elsewhere = stream({ ...user, organizationId: 'o2' });
    watch.changed({ resourceType: 'roles', resourceId: 'r1', organizationId: 'o1' });
    await settle();
    expect([vouched.revoked, elsewhere.revoked]).toEqual([true, false]);
  });

  it('keeps the stream when the re-check fails for another reason than a refusal', async () => {
    const { watch, stream, errors } = setup();
    const key = generateKey();
    const principal: Principal = {
      kind: 'apiKey',
      keyId: 'k9',
      organizationId: 'o1',
      projectId: 'p1',
      scope: 'published',
    };
    // The key is unknown to the tables: authentication refuses it (401) and the stream ends.
    const refused = stream(principal, { credentials: { apiKey: key } });
    const failing = stream(principal, {
      credentials: {},
      authorize: async () => {
        throw new Error('database away');
      },
    });
    const forbidden = stream(principal, {
      credentials: {},
      authorize: async () => {
        throw new ForbiddenError('events', 'read');
      },
    });
    watch.changed({ resourceType: 'projects', resourceId: 'p1', organizationId: 'o1' });
    await settle();
    expect([refused.revoked, failing.revoked, forbidden.revoked]).toEqual([true, false, true]);
    expect(errors).toHaveLength(1);
  });
});
