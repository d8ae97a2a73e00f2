// Sign-in and request authentication: turns credentials or a bearer token into a Principal.
import { UnauthorizedError } from '@cp/errors';
import { ANONYMOUS, type Principal } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Role } from '../role/role.entity';
import { User } from '../user/user.entity';
import { DUMMY_HASH, verifyPassword } from './password';
import type { TokenService } from './tokens';

export interface AuthHeaders {
  authorization?: string;
  apiKey?: string;
}

export class AuthService {
  constructor(
    private readonly tokens: TokenService,
    private readonly tokenTtlSeconds: number,
  ) {}

  /** The same answer for an unknown email and a wrong password, at the same cost. */
  async login(em: EntityManager, email: string, password: string) {
    const user = await em.findOne(User, { email: email.trim().toLowerCase() }, { populate: ['passwordHash'] });
    const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH));
    if (!user || !ok) throw new UnauthorizedError('Invalid email or password.');
    const { token, expiresAt } = await this.tokens.issue({
      userId: user.id,
      organizationId: user.organizationId,
      ttlSeconds: this.tokenTtlSeconds,
    });
    return { token, expiresAt, user };
  }

  /** Resolves the caller; a credential that is present but bad is refused (401), never treated as anonymous. */
  async authenticate(em: EntityManager, headers: AuthHeaders): Promise<Principal> {
    if (headers.authorization !== undefined) {
      const [scheme, token] = headers.authorization.split(' ');
      if (scheme?.toLowerCase() !== 'bearer' || !token) throw new UnauthorizedError('Expected `Authorization: Bearer <token>`.');
      return this.authenticateToken(em, token);
    }
    return ANONYMOUS;
  }

  private async authenticateToken(em: EntityManager, token: string): Promise<Principal> {
    const claims = await this.tokens.verify(token);
    const user = await em.findOne(User, { id: claims.userId, organizationId: claims.organizationId });
    // A removed user, or a token older than the last password change, no longer works.
    if (!user || claims.issuedAt.getTime() < Math.floor(user.tokensValidAfter.getTime() / 1000) * 1000) {
      throw new UnauthorizedError('The token has been revoked.');
    }
    const role = await em.findOne(Role, { id: user.roleId, organizationId: user.organizationId });
    return {
      kind: 'user',
      userId: user.id,
      organizationId: user.organizationId,
      permissions: role?.permissions ?? {},
      projectId: claims.projectId,
    };
  }
}
