// Sign-in (email and password → admin JWT, throttled per account) and scoped tokens narrower than the caller's.
import { NotFoundError, UnauthorizedError, ValidationFailedError } from '@cp/errors';
import type { ProjectDirectory, UserPrincipal } from '@cp/principal';
import { DUMMY_HASH, verifyPassword } from './password';
import type { SignInThrottle } from './sign-in-throttle';
import type { TokenService } from './tokens';

/** What sign-in needs of a user row; the access module finds it (its `User` entity) by normalised email. */
export interface Account {
  id: string;
  organizationId: string;
  passwordHash?: string | null;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class SignIn {
  constructor(
    private readonly tokens: TokenService,
    private readonly tokenTtlSeconds: number,
    /**
     * Failed sign-ins per account across addresses: in the rate limiter's shared store when the host has one, so
     * every replica counts one budget.
     */
    readonly throttle: SignInThrottle,
  ) {}

  /** The same answer for an unknown email and a wrong password, at the same cost. */
  async login<A extends Account>(
    email: string,
    password: string,
    find: (normalizedEmail: string) => Promise<A | null | undefined>,
  ): Promise<{ token: string; expiresAt: Date; account: A }> {
    await this.throttle.assertAllowed(email);
    const account = await find(normalizeEmail(email));
    const ok = await verifyPassword(password, account?.passwordHash ?? (await DUMMY_HASH));
    if (!account || !ok) {
      await this.throttle.failed(email);
      throw new UnauthorizedError('Invalid email or password.');
    }
    await this.throttle.succeeded(email);
    const { token, expiresAt } = await this.tokens.issue({
      userId: account.id,
      organizationId: account.organizationId,
      ttlSeconds: this.tokenTtlSeconds,
    });
    return { token, expiresAt, account };
  }

  /**
   * A narrower token for the caller: the same user (so the same role, read on each request), optionally one
   * project, and an expiry no later than the caller's own token.
   */
  async issueToken(
    caller: UserPrincipal,
    input: { projectId?: string; expiresIn?: number },
    projects: ProjectDirectory,
  ) {
    const projectId = input.projectId ?? caller.projectId;
    if (caller.projectId !== undefined && projectId !== caller.projectId) throw new NotFoundError('Project', projectId);
    if (projectId !== undefined && !(await projects.exists(caller.organizationId, projectId)))
      throw new NotFoundError('Project', projectId);
    const remaining = Math.floor(((caller.tokenExpiresAt ?? Date.now()) - Date.now()) / 1000);
    const expiresIn = input.expiresIn ?? remaining;
    if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > remaining) {
      throw new ValidationFailedError([
        {
          path: '/expiresIn',
          message: `must be between 1 and ${Math.max(remaining, 1)} seconds (the caller's token lifetime)`,
        },
      ]);
    }
    const { token, expiresAt } = await this.tokens.issue({
      userId: caller.userId,
      organizationId: caller.organizationId,
      projectId,
      ttlSeconds: expiresIn,
    });
    return { token, expiresAt, projectId };
  }
}
