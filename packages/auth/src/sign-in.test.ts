// Sign-in: one answer for an unknown email and a wrong password, the per-account throttle, and verifiable tokens.
import { describe, expect, it } from 'vitest';
import { hashPassword } from './password';
import { SignIn } from './sign-in';
import { memorySignInThrottle } from './sign-in-throttle';
import { TokenService } from './tokens';

const tokens = new TokenService(new TextEncoder().encode('t'.repeat(40)));

describe('SignIn', () => {
  it('signs in by normalised email and refuses unknown users and wrong passwords alike, then throttles the account', async () => {
    const passwordHash = await hashPassword('pw-123456');
    const account = { id: 'u1', organizationId: 'o1', passwordHash };
    const find = async (email: string) => (email === 'admin@example.com' ? account : null);
    const signIn = new SignIn(tokens, 60, memorySignInThrottle(2, 60));

    const { token, account: found } = await signIn.login(' Admin@Example.com ', 'pw-123456', find);
    expect(found).toBe(account);
    expect(await tokens.verify(token)).toMatchObject({ userId: 'u1', organizationId: 'o1' });

    await expect(signIn.login('ghost@example.com', 'pw-123456', find)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(signIn.login('admin@example.com', 'wrong', find)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(signIn.login('admin@example.com', 'wrong', find)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // The account's failures are used up: even the right password waits for the window (429).
    await expect(signIn.login('ADMIN@example.com', 'pw-123456', find)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('issues scoped tokens no wider and no longer-lived than the caller', async () => {
    const signIn = new SignIn(tokens, 60, memorySignInThrottle(10, 60));
    const projects = { exists: async (_org: string, id: string) => id === 'p1', locales: async () => undefined };
    const caller = {
      kind: 'user' as const,
      userId: 'u1',
      organizationId: 'o1',
      permissions: {},
      tokenExpiresAt: Date.now() + 120_000,
    };
    const issued = await signIn.issueToken(caller, { projectId: 'p1', expiresIn: 60 }, projects);
    expect(await tokens.verify(issued.token)).toMatchObject({ userId: 'u1', projectId: 'p1' });
    await expect(signIn.issueToken(caller, { projectId: 'p2' }, projects)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(signIn.issueToken(caller, { expiresIn: 3600 }, projects)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    const scoped = { ...caller, projectId: 'p1' };
    await expect(signIn.issueToken(scoped, { projectId: 'p3' }, projects)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
