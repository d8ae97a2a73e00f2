// The entry point's answer depends on the credentials, never on the transport that carried them (differential, fast-check).
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@cp/principal';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from './api-key-secret';
import { createAuthentication, type Authentication } from './authentication';
import { connectionCredentials, httpCredentials, type Credentials } from './credentials';
import { MemoryAccessTables } from './test/memory-tables';
import { TokenService } from './tokens';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 150) };
const secret = new TextEncoder().encode('j'.repeat(40));
const subgraphSecret = new TextEncoder().encode('s'.repeat(40));
const vouch = { secret: subgraphSecret, subgraph: 'content' };
const config = { auth: { tokenTtlSeconds: 600 } };

type Outcome = { principal: Principal } | { refused: string };

async function outcome(auth: Authentication, tables: MemoryAccessTables, credentials: Credentials): Promise<Outcome> {
  try {
    return { principal: (await auth.authenticate(tables.em, credentials)).principal };
  } catch (err) {
    return { refused: (err as { code?: string }).code ?? String(err) };
  }
}

/** What a client presents: a bearer header and/or a key, as it would type them (no transport yet). */
interface Presented {
  authorization?: string;
  apiKey?: string;
}

const tables = new MemoryAccessTables();
const keys = { active: generateKey(), preview: generateKey(), revoked: generateKey(), unknown: generateKey() };
const tokens: Record<string, string> = {};

beforeAll(async () => {
  tables.addKey(keys.active, {
    id: 'k1',
    organization_id: 'o1',
    project_id: 'p1',
    status: 'active',
    scope: 'published',
  });
  tables.addKey(keys.preview, {
    id: 'k2',
    organization_id: 'o1',
    project_id: 'p1',
    status: 'active',
    scope: 'preview',
  });
  tables.addKey(keys.revoked, {
    id: 'k3',
    organization_id: 'o1',
    project_id: 'p1',
    status: 'revoked',
    scope: 'published',
  });
  tables.addUser('o1', 'u1', { content: { read: true, publish: true } });
  tables.addUser('o1', 'u2', {}, new Date(Date.now() + 3_600_000)); // changed its password after the token was issued
  const issuer = new TokenService(secret);
  tokens.user = (await issuer.issue({ userId: 'u1', organizationId: 'o1', ttlSeconds: 600 })).token;
  tokens.scoped = (await issuer.issue({ userId: 'u1', organizationId: 'o1', projectId: 'p1', ttlSeconds: 60 })).token;
  tokens.revoked = (await issuer.issue({ userId: 'u2', organizationId: 'o1', ttlSeconds: 600 })).token;
  tokens.removed = (await issuer.issue({ userId: 'u9', organizationId: 'o1', ttlSeconds: 600 })).token;
  tokens.foreign = (
    await new TokenService(subgraphSecret).issue({ userId: 'u1', organizationId: 'o1', ttlSeconds: 9 })
  ).token;
  tokens.unsigned = await new SignJWT({ org: 'o1' }).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').sign(secret);
});

const pad = fc.constantFrom('', ' ', '  ');
const apiKey = fc
  .tuple(pad, fc.constantFrom('active', 'preview', 'revoked', 'unknown', 'garbage', 'prefix-only'), pad)
  .map(([before, which, after]) => {
    const value = which === 'garbage' ? 'not-a-key' : which === 'prefix-only' ? 'cpk_live_' : keys[which as 'active'];
    return before + value + after;
  });
const authorization = fc
  .tuple(
    fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token'),
    fc.constantFrom('user', 'scoped', 'revoked', 'removed', 'foreign', 'unsigned', 'junk'),
  )
  .map(([scheme, which]) => `${scheme} ${which === 'junk' ? 'a.b.c' : tokens[which]}`);
const presented: fc.Arbitrary<Presented> = fc.oneof(
  apiKey.map((k) => ({ apiKey: k })),
  authorization.map((a) => ({ authorization: a })),
  fc.record({ authorization, apiKey }),
  fc.constant({}),
);

/** A header or connection-parameter name as a client may spell it (graphql-ws names are case-insensitive). */
const spelled = (name: string) =>
  fc.constantFrom(
    name,
    name.toUpperCase(),
    name.replace(/(^|-)([a-z])/g, (_m, dash, c) => dash + c.toUpperCase()),
  );

/** The same credentials on each transport the four callers read. */
const transports = (p: Presented) =>
  fc.record({
    /** graphql-ws `connectionParams`, flat or nested as Apollo Router sends them. */
    params: fc
      .record({ auth: spelled('authorization'), key: spelled('x-api-key'), nested: fc.boolean() })
      .map(({ auth, key, nested }) => {
        const params: Record<string, unknown> = {};
        if (p.authorization !== undefined) params[auth] = p.authorization;
        if (p.apiKey !== undefined) params[key] = p.apiKey;
        return nested ? { connectionParams: params } : params;
      }),
  });

const headersOf = (p: Presented): IncomingHttpHeaders => ({
  ...(p.authorization !== undefined ? { authorization: p.authorization } : {}),
  ...(p.apiKey !== undefined ? { 'x-api-key': p.apiKey } : {}),
});

describe('one entry point, whichever transport carries the credentials', () => {
  // The gateway caches principals (access events drop them); a subgraph service does not, and takes signed principals.
  const gateway = createAuthentication(config, secret, { cacheTtlSeconds: 60 });
  const service = createAuthentication(config, secret, { vouch });

  it('gives the same principal or the same refusal over HTTP, connectionParams and upgrade headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        presented.chain((p) => fc.tuple(fc.constant(p), transports(p))),
        async ([p, { params }]) => {
          const http = await outcome(gateway, tables, httpCredentials(headersOf(p)));
          const answers = [
            await outcome(gateway, tables, connectionCredentials(params, {})),
            await outcome(gateway, tables, connectionCredentials(undefined, headersOf(p))),
            await outcome(service, tables, httpCredentials(headersOf(p))),
            await outcome(service, tables, connectionCredentials(params, {})),
          ];
          for (const answer of answers) expect(answer).toEqual(http);
        },
      ),
      runs,
    );
  });

  it("gives the principal our gateway signed (x-cp-principal) the same as the client's own credentials", async () => {
    await fc.assert(
      fc.asyncProperty(presented, fc.uuid(), fc.boolean(), async (p, requestId, withClientCredentials) => {
        const http = await outcome(gateway, tables, httpCredentials(headersOf(p)));
        if (!('principal' in http)) return; // the gateway refuses before it signs anything
        const signed = await signPrincipal(http.principal, subgraphSecret, { subgraph: 'content', requestId });
        const vouched = { [PRINCIPAL_HEADER]: signed, 'x-request-id': requestId };
        // A signed principal wins over whatever else the request carries (our gateway authenticated already).
        const extra = withClientCredentials ? { authorization: 'Bearer a.b.c' } : {};
        for (const credentials of [
          httpCredentials({ ...extra, ...vouched }),
          connectionCredentials({ ...extra, ...vouched }, {}),
          connectionCredentials(undefined, { ...extra, ...vouched }),
        ]) {
          const answer = await service.authenticate(tables.em, credentials);
          expect(answer.principal).toEqual(http.principal);
          expect(answer.via).toBe('gateway');
        }
      }),
      runs,
    );
  });

  it('refuses an empty principal header over HTTP instead of vouching for an anonymous caller', async () => {
    await expect(service.authenticate(tables.em, httpCredentials({ [PRINCIPAL_HEADER]: '' }))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('answers a cached API key and a cached user without a database round trip', async () => {
    const cached = createAuthentication(config, secret, { cacheTtlSeconds: 60 });
    const key = httpCredentials({ 'x-api-key': keys.active });
    const token = httpCredentials({ authorization: `Bearer ${tokens.user}` });
    await cached.authenticate(tables.em, key);
    await cached.authenticate(tables.em, token);
    const before = tables.queries;
    expect((await cached.authenticate(tables.em, key)).principal).toMatchObject({ keyId: 'k1' });
    expect((await cached.authenticate(tables.em, token)).principal).toMatchObject({ userId: 'u1' });
    expect(tables.queries).toBe(before);
    // An access event drops the entries: the next request reads the database again.
    cached.cache.invalidate({ resourceType: 'api-keys', resourceId: 'k1', organizationId: 'o1' });
    await cached.authenticate(tables.em, key);
    expect(tables.queries).toBe(before + 1);
  });
});
