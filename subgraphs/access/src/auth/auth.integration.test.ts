import { createAuthentication, httpCredentials } from '@cp/auth';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../bootstrap';
import { accessDatabase } from '../subgraph';
import { User } from '../user/user.entity';
import { AuthService } from './auth.service';

const secret = new TextEncoder().encode('s'.repeat(40));
const authentication = createAuthentication({ auth: { tokenTtlSeconds: 60 } }, secret);
const signIn = new AuthService(authentication.signIn);
/** The entry point every host calls, fed headers as an HTTP request carries them. */
const authenticate = async (em: Parameters<typeof authentication.authenticate>[0], headers: Record<string, string>) =>
  (await authentication.authenticate(em, httpCredentials(headers))).principal;

describe.each(['postgres', 'pglite'] as const)('sign-in on %s', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(kind, [accessDatabase]);
    await bootstrap(db.orm.em.fork(), { email: 'Admin@Example.com', password: 'pw-123456' });
  });
  afterAll(() => db?.destroy());

  it('bootstraps once: default organization and project, Owner role, admin user', async () => {
    await bootstrap(db.orm.em.fork(), { email: 'other@example.com', password: 'x' });
    const rows = await db.orm.em
      .getConnection()
      .execute(
        `select (select count(*)::int from organization) orgs, (select id from project) project, (select name from role) role, (select email from "user") email`,
      );
    expect(rows[0]).toEqual({ orgs: 1, project: 'default', role: 'Owner', email: 'admin@example.com' });
  });

  it('logs in case-insensitively by email and issues a verifiable token', async () => {
    const { token, user, expiresAt } = await signIn.login(db.orm.em.fork(), 'ADMIN@example.com', 'pw-123456');
    expect(user.email).toBe('admin@example.com');
    expect(expiresAt.getTime()).toBeGreaterThan(Date.now());
    const principal = await authenticate(db.orm.em.fork(), { authorization: `Bearer ${token}` });
    expect(principal).toMatchObject({
      kind: 'user',
      userId: user.id,
      organizationId: 'default',
      permissions: { content: { publish: true } },
    });
  });

  it('refuses wrong passwords, unknown users, alg none, foreign signatures and revoked tokens', async () => {
    await expect(signIn.login(db.orm.em.fork(), 'admin@example.com', 'wrong')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(signIn.login(db.orm.em.fork(), 'ghost@example.com', 'wrong')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });

    const { token, user } = await signIn.login(db.orm.em.fork(), 'admin@example.com', 'pw-123456');
    const [header, payload] = token.split('.');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    await expect(authenticate(db.orm.em.fork(), { authorization: `Bearer ${none}` })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const foreign = await new SignJWT({ org: 'default' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .sign(new TextEncoder().encode('x'.repeat(40)));
    await expect(authenticate(db.orm.em.fork(), { authorization: `Bearer ${foreign}` })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(header).toBeTruthy();

    const em = db.orm.em.fork();
    const stored = await em.findOneOrFail(User, { id: user.id });
    stored.tokensValidAfter = new Date(Date.now() + 1000);
    await em.flush();
    await expect(authenticate(db.orm.em.fork(), { authorization: `Bearer ${token}` })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('treats no credential as anonymous, and a malformed header as 401', async () => {
    expect(await authenticate(db.orm.em.fork(), {})).toEqual({ kind: 'anonymous' });
    await expect(authenticate(db.orm.em.fork(), { authorization: 'Basic abc' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });
});
