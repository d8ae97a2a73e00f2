// Admin JWTs (jose): HS256 pinned, with iss, aud, sub, iat, exp checked on every request.
import { UnauthorizedError } from '@cp/errors';
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'content-platform';
const AUDIENCE = 'content-platform-admin';

export interface TokenClaims {
  userId: string;
  organizationId: string;
  /** Set on project-scoped tokens. */
  projectId?: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** Verified tokens remembered (a full table is dropped rather than tracked for recency). */
const MAX_VERIFIED = 10_000;

export class TokenService {
  /**
   * Token string → its claims, once its signature and claims have verified: an admin sends the same token on every
   * request, and HMAC verification with jose's claim checks is the largest part of authenticating one. Only `exp`
   * can turn a verified token invalid later (the secret is this instance's), so a hit checks it as jose would.
   * Revocation (a password change, a removed user) is checked per request after this, by the caller.
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(private readonly secret: Uint8Array) {}

  async issue(claims: { userId: string; organizationId: string; projectId?: string; ttlSeconds: number }) {
    const nowMs = Date.now();
    const now = Math.floor(nowMs / 1000);
    const exp = now + claims.ttlSeconds;
    // `iat` has whole seconds; `iatm` (milliseconds) lets a password change revoke tokens issued earlier in the same second.
    const token = await new SignJWT({
      org: claims.organizationId,
      iatm: nowMs,
      ...(claims.projectId ? { prj: claims.projectId } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.secret);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  async verify(token: string): Promise<TokenClaims> {
    const known = this.remembered(token);
    if (known) return known;
    const claims = await this.verifyUncached(token);
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  /** What `verify` answers for a token it verified before and that has not expired since; undefined otherwise. */
  private remembered(token: string): TokenClaims | undefined {
    const known = this.verified.get(token);
    // jose refuses a token once `exp <= floor(now / 1000)`, i.e. from the millisecond `exp * 1000` on.
    if (known && Date.now() < known.expiresAt.getTime()) return known;
    if (known) this.verified.delete(token);
    return undefined;
  }

  private async verifyUncached(token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      if (typeof payload.sub !== 'string' || typeof payload.org !== 'string' || !payload.iat || !payload.exp) {
        throw new Error('missing claims');
      }
      return {
        userId: payload.sub,
        organizationId: payload.org,
        projectId: typeof payload.prj === 'string' ? payload.prj : undefined,
        issuedAt: new Date(typeof payload.iatm === 'number' ? payload.iatm : payload.iat * 1000),
        expiresAt: new Date(payload.exp * 1000),
      };
    } catch {
      throw new UnauthorizedError('The token is invalid or expired.');
    }
  }
}
