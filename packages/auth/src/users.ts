// Admin-token authentication: a verified JWT's user and role, from the principal cache or one database round trip.
import { UnauthorizedError } from '@cp/errors';
import type { Permissions, UserPrincipal } from '@cp/principal';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CachedUser, PrincipalCache } from './principal-cache';
import type { TokenClaims, TokenService } from './tokens';

export class UserLookup {
  constructor(
    private readonly tokens: TokenService,
    private readonly cache: PrincipalCache,
  ) {}

  /** A cache hit costs the signature check and a map lookup, no database round trip. */
  async authenticate(em: EntityManager, token: string): Promise<UserPrincipal> {
    const claims = await this.tokens.verify(token);
    const { organizationId, userId } = claims;
    const user =
      this.cache.getUser(organizationId, userId) ??
      (await this.cache.loadUser(organizationId, userId, () => this.read(em, organizationId, userId)));
    const principal = principalOf(claims, user);
    if (!principal) throw new UnauthorizedError('The token has been revoked.');
    return principal;
  }

  /** One round trip for the user and its role (the access module's tables), on a miss only; a missing user is not cached. */
  private async read(em: EntityManager, organizationId: string, userId: string): Promise<CachedUser | undefined> {
    const [row] = await em.getConnection().execute<{ tokens_valid_after: Date; permissions: Permissions | null }[]>(
      `select u."tokens_valid_after", r."permissions" from "user" u
       left join "role" r on r."id" = u."role_id" and r."organization_id" = u."organization_id"
       where u."id" = ? and u."organization_id" = ?`,
      [userId, organizationId],
    );
    if (!row) return undefined;
    return { tokensValidAfter: new Date(row.tokens_valid_after).getTime(), permissions: row.permissions ?? {} };
  }
}

/** The token's principal; undefined for a removed user, or a token older than the last password change. */
function principalOf(claims: TokenClaims, user: CachedUser | undefined): UserPrincipal | undefined {
  if (!user || claims.issuedAt.getTime() < user.tokensValidAfter) return undefined;
  return {
    kind: 'user',
    userId: claims.userId,
    organizationId: claims.organizationId,
    permissions: user.permissions,
    projectId: claims.projectId,
    tokenExpiresAt: claims.expiresAt.getTime(),
  };
}
