// Sign-in and request authentication: turns credentials or a bearer token into a Principal.
import { NotFoundError, UnauthorizedError, ValidationFailedError } from '@cp/errors';
import { ANONYMOUS, type Permissions, type Principal, type ProjectDirectory, type UserPrincipal } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeyService } from '../api-key/api-key.service';
import type { IssueTokenInput } from './auth.inputs';
import { User } from '../user/user.entity';
import { DUMMY_HASH, verifyPassword } from './password';
import type { TokenService } from './tokens';
import { PrincipalCache, type CachedUser } from './principal-cache';
import { memorySignInThrottle, type SignInThrottle } from './sign-in-throttle';

export interface AuthHeaders {
  authorization?: string;
  apiKey?: string;
}

export class AuthService {
  readonly apiKeys: ApiKeyService;
  /**
   * Failed sign-ins per account across addresses. Per process by default; the gateway replaces it with
   * one in the rate limiter's shared store so every replica counts one budget.
   */
  signInThrottle: SignInThrottle = memorySignInThrottle(10, 15 * 60);

  constructor(
    private readonly tokens: TokenService,
    private readonly tokenTtlSeconds: number,
    /** What authentication read from the database; the gateway drops entries on access events. */
    readonly cache = new PrincipalCache(0),
  ) {
    this.apiKeys = new ApiKeyService(cache);
  }

  /** The same answer for an unknown email and a wrong password, at the same cost. */
  async login(em: EntityManager, email: string, password: string) {
    await this.signInThrottle.assertAllowed(email);
    const user = await em.findOne(User, { email: email.trim().toLowerCase() }, { populate: ['passwordHash'] });
    const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH));
    if (!user || !ok) {
      await this.signInThrottle.failed(email);
      throw new UnauthorizedError('Invalid email or password.');
    }
    await this.signInThrottle.succeeded(email);
    const { token, expiresAt } = await this.tokens.issue({
      userId: user.id,
      organizationId: user.organizationId,
      ttlSeconds: this.tokenTtlSeconds,
    });
    return { token, expiresAt, user };
  }

  /**
   * A narrower token for the caller (D5): the same user (so the same role, read on each request), optionally one
   * project, and an expiry no later than the caller's own token.
   */
  async issueToken(caller: UserPrincipal, input: IssueTokenInput, projects: ProjectDirectory) {
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

  /** Resolves the caller; a credential that is present but bad is refused (401), never treated as anonymous. */
  async authenticate(em: EntityManager, headers: AuthHeaders): Promise<Principal> {
    if (headers.authorization !== undefined && headers.apiKey !== undefined) {
      throw new UnauthorizedError('Send either a bearer token or an API key, not both.');
    }
    if (headers.apiKey !== undefined) return this.apiKeys.authenticate(em, headers.apiKey.trim());
    if (headers.authorization !== undefined) {
      const [scheme, token] = headers.authorization.split(' ');
      if (scheme?.toLowerCase() !== 'bearer' || !token)
        throw new UnauthorizedError('Expected `Authorization: Bearer <token>`.');
      return this.authenticateToken(em, token);
    }
    return ANONYMOUS;
  }

  private async authenticateToken(em: EntityManager, token: string): Promise<Principal> {
    const claims = await this.tokens.verify(token);
    const user =
      this.cache.getUser(claims.organizationId, claims.userId) ??
      (await this.loadUser(em, claims.organizationId, claims.userId));
    // A removed user, or a token older than the last password change, no longer works.
    if (!user || claims.issuedAt.getTime() < user.tokensValidAfter) {
      throw new UnauthorizedError('The token has been revoked.');
    }
    return {
      kind: 'user',
      userId: claims.userId,
      organizationId: claims.organizationId,
      permissions: user.permissions,
      projectId: claims.projectId,
      tokenExpiresAt: claims.expiresAt.getTime(),
    };
  }

  /** One round trip for the user and its role, on a cache miss only; a missing user is not cached. */
  private async loadUser(em: EntityManager, organizationId: string, userId: string): Promise<CachedUser | undefined> {
    const ticket = this.cache.ticket();
    const [row] = await em.getConnection().execute<{ tokens_valid_after: Date; permissions: Permissions | null }[]>(
      `select u."tokens_valid_after", r."permissions" from "user" u
       left join "role" r on r."id" = u."role_id" and r."organization_id" = u."organization_id"
       where u."id" = ? and u."organization_id" = ?`,
      [userId, organizationId],
    );
    if (!row) return undefined;
    const user: CachedUser = {
      tokensValidAfter: new Date(row.tokens_valid_after).getTime(),
      permissions: row.permissions ?? {},
    };
    this.cache.setUser(ticket, organizationId, userId, user);
    return user;
  }
}
