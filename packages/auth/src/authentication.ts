// The one authentication entry point: credentials (read once by credentials.ts) → principal, for every host and transport.
import type { Config } from '@cp/config';
import { UnauthorizedError } from '@cp/errors';
import { ANONYMOUS, verifyVouched, type Authenticated, type Authenticator } from '@cp/principal';
import type { Credentials, Principal } from '@cp/principal';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiKeyLookup } from './api-keys';
import { PrincipalCache } from './principal-cache';
import { SignIn } from './sign-in';
import { limiterSignInThrottle, memorySignInThrottle } from './sign-in-throttle';
import { TokenService } from './tokens';
import { UserLookup } from './users';

/** How a subgraph service checks our gateway's signed principal: SUBGRAPH_SECRET and its subgraph name (the audience). */
export interface GatewayVouch {
  secret: Uint8Array;
  subgraph: string;
}

/**
 * The gateway's HTTP context, graphql-ws `onConnect`, a subgraph service's caller check and the re-check of live
 * streams all call `authenticate`: one set of rules, one principal cache, whichever transport carried the credentials.
 */
export class Authentication implements Authenticator {
  readonly apiKeys: ApiKeyLookup;
  private readonly users: UserLookup;

  constructor(
    readonly signIn: SignIn,
    tokens: TokenService,
    /** What authentication read from the database; the host drops entries on access events (`cache.invalidate`). */
    readonly cache: PrincipalCache,
    /** A subgraph service takes our gateway's signed principal; the gateway itself never does. */
    private readonly vouch?: GatewayVouch,
  ) {
    this.apiKeys = new ApiKeyLookup(cache);
    this.users = new UserLookup(tokens, cache);
  }

  /**
   * A signed principal wins where it is accepted (our gateway authenticated and rate-limited already); otherwise the
   * client's own credentials. No credential is anonymous; one that is present but bad is refused (401), never
   * treated as anonymous.
   */
  authenticate(em: EntityManager, credentials: Credentials): Authenticated | Promise<Authenticated> {
    const { authorization, apiKey, signed } = credentials;
    // Answers memory already holds come back without a promise: a busy key's every request would pay for one.
    if (authorization === undefined && !(this.vouch && signed !== undefined)) {
      if (apiKey === undefined) return { principal: ANONYMOUS, via: 'anonymous' };
      const principal = this.apiKeys.cached(em, apiKey.trim());
      if (principal) return { principal, via: 'credentials' };
    }
    return this.check(em, credentials);
  }

  private async check(em: EntityManager, credentials: Credentials): Promise<Authenticated> {
    if (this.vouch && credentials.signed !== undefined) {
      // `verifyPrincipal` reads an empty header as no header; here it is a present, bad one.
      if (credentials.signed === '') throw new UnauthorizedError('The forwarded principal is invalid.');
      const binding = { subgraph: this.vouch.subgraph, requestId: credentials.requestId };
      return { ...(await verifyVouched(credentials.signed, this.vouch.secret, binding)), via: 'gateway' };
    }
    const { authorization, apiKey } = credentials;
    return { principal: await this.clientPrincipal(em, authorization, apiKey), via: 'credentials' };
  }

  private clientPrincipal(em: EntityManager, authorization?: string, apiKey?: string): Promise<Principal> {
    if (authorization !== undefined && apiKey !== undefined) {
      throw new UnauthorizedError('Send either a bearer token or an API key, not both.');
    }
    if (apiKey !== undefined) return this.apiKeys.authenticate(em, apiKey.trim());
    const token = bearerToken(authorization!);
    if (token === undefined) throw new UnauthorizedError('Expected `Authorization: Bearer <token>`.');
    return this.users.authenticate(em, token);
  }
}

/** The token of `Authorization: Bearer <token>`; undefined for any other form. */
function bearerToken(authorization: string): string | undefined {
  const [scheme, token] = authorization.split(' ');
  return scheme?.toLowerCase() === 'bearer' && token ? token : undefined;
}

export interface AuthenticationOptions {
  /** Only from a host that feeds the cache access events (the gateway); without it every request reads the database. */
  cacheTtlSeconds?: number;
  /** The shared rate-limit store's sign-in limiter, so failures count across every process. */
  signInLimiter?: RateLimiterAbstract;
  vouch?: GatewayVouch;
}

/** One per process, made by its host (the gateway, a subgraph service) or by `npm run compose` (no database). */
export function createAuthentication(
  config: { auth: Pick<Config['auth'], 'tokenTtlSeconds'>; rateLimit?: Config['rateLimit'] },
  secret: Uint8Array,
  options: AuthenticationOptions = {},
): Authentication {
  const tokens = new TokenService(secret);
  const throttle = options.signInLimiter
    ? limiterSignInThrottle(options.signInLimiter)
    : config.rateLimit
      ? memorySignInThrottle(config.rateLimit.signInFailures, config.rateLimit.signInWindowSeconds)
      : memorySignInThrottle(10, 15 * 60);
  const cache = new PrincipalCache((options.cacheTtlSeconds ?? 0) * 1000);
  return new Authentication(new SignIn(tokens, config.auth.tokenTtlSeconds, throttle), tokens, cache, options.vouch);
}
