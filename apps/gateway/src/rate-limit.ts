// Rate limits (D5): one budget per token or API key shared by REST and GraphQL and by every replica; sign-in per IP.
import type { Config, Logger } from '@cp/config';
import { RateLimitedError } from '@cp/errors';
import type { Context } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { NextFunction, Request, Response } from 'express';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

export interface RateLimitOptions {
  config: Pick<Config, 'rateLimit' | 'redisUrl'>;
  orm: MikroORM;
  /** PGlite: one process owns the database, so an in-memory store is already shared by every request. */
  embedded: boolean;
  logger: Logger;
}

export interface RateLimiter {
  /** Express middleware; runs after authentication (it reads `res.locals.context`). */
  middleware(onError: (res: Response, err: unknown) => void): (req: Request, res: Response, next: NextFunction) => Promise<void>;
  /**
   * Wraps the answer to a failed authentication: the failure counts against the caller's address on the anonymous
   * budget, so guessing tokens or keys is throttled like guessing passwords (429 once it is spent).
   */
  onAuthFailure(onError: (res: Response, err: unknown) => void): (res: Response, err: unknown) => Promise<void>;
  /**
   * For transports without an HTTP response (graphql-ws connections and subscriptions): spends one request of the
   * caller's budget and answers whether it fitted. `credential` is the bearer header, `peer` the remote address.
   */
  allow(principal: Context['principal'], credential: string | undefined, peer: string | undefined): Promise<boolean>;
  /** Which store holds the counters: `postgres`, `redis` or `memory`. */
  store: 'postgres' | 'redis' | 'memory';
  close(): Promise<void>;
}

const TABLE = 'rate_limit';

/** Redis when `REDIS_URL` is set, else the service's PostgreSQL, else (PGlite) memory. */
export async function createRateLimiter(options: RateLimitOptions): Promise<RateLimiter> {
  const { perMinute, perHour, anonymousPerMinute } = options.config.rateLimit;
  const windows: IRateLimiterOptions[] = [
    { keyPrefix: 'rl_min', points: perMinute, duration: 60 },
    { keyPrefix: 'rl_hour', points: perHour, duration: 3600 },
  ];
  const anonymousWindow: IRateLimiterOptions = { keyPrefix: 'rl_anon', points: anonymousPerMinute, duration: 60 };

  let redis: Redis | undefined;
  let store: RateLimiter['store'];
  let make: (o: IRateLimiterOptions) => Promise<RateLimiterAbstract>;
  if (options.config.redisUrl) {
    store = 'redis';
    redis = new Redis(options.config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const client = redis;
    make = async (o) => new RateLimiterRedis({ ...o, storeClient: client, insuranceLimiter: new RateLimiterMemory(o) });
  } else if (!options.embedded) {
    store = 'postgres';
    // MikroORM's knex instance: the limiter borrows connections from the service's own pool.
    const knex = options.orm.em.getConnection().getKnex();
    make = (o) =>
      new Promise((resolve, reject) => {
        const limiter: RateLimiterPostgres = new RateLimiterPostgres(
          { ...o, storeClient: knex, storeType: 'knex', tableName: TABLE, clearExpiredByTimeout: true, insuranceLimiter: new RateLimiterMemory(o) },
          (err?: Error) => (err ? reject(err) : resolve(limiter)),
        );
      });
  } else {
    store = 'memory';
    make = async (o) => new RateLimiterMemory(o);
  }
  // Created one after another: concurrent `create table if not exists` on one table can collide in PostgreSQL.
  const perToken: RateLimiterAbstract[] = [];
  for (const w of windows) perToken.push(await make(w));
  const anonymous = await make(anonymousWindow);
  options.logger.info({ store, perMinute, perHour, anonymousPerMinute }, 'rate limits ready');

  return {
    store,
    middleware(onError) {
      return async (req, res, next) => {
        const principal = (res.locals.context as Context).principal;
        const key = budgetKey(principal, req.header('authorization'), req.socket.remoteAddress);
        const limiters = principal.kind === 'anonymous' ? [anonymous] : perToken;
        const outcomes = await Promise.all(limiters.map((l) => consume(l, key)));
        // The headers describe the tightest window: the one with the fewest requests left.
        setHeaders(res, outcomes.reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a)));
        const refused = outcomes.filter((o) => o.refused);
        if (refused.length === 0) return next();
        refuse(res, refused, onError);
      };
    },
    async allow(principal, credential, peer) {
      const limiters = principal.kind === 'anonymous' ? [anonymous] : perToken;
      const key = budgetKey(principal, credential, peer);
      const outcomes = await Promise.all(limiters.map((l) => consume(l, key)));
      return outcomes.every((o) => !o.refused);
    },
    onAuthFailure(onError) {
      return async (res, err) => {
        const outcome = await consume(anonymous, `ip:${res.req.socket.remoteAddress ?? 'unknown'}`).catch(() => undefined);
        if (!outcome?.refused) return onError(res, err);
        setHeaders(res, outcome);
        refuse(res, [outcome], onError);
      };
    },
    async close() {
      redis?.disconnect();
    },
  };
}

/**
 * The budget belongs to what authenticated the request, never to a header the client can vary freely:
 * a user's token (its hash: the same user with two tokens has two budgets, as D5 counts per token), a key's
 * id, or — without a credential — the TCP peer address (`X-Forwarded-For` is ignored: anyone can set it).
 */
function budgetKey(principal: Context['principal'], authorization: string | undefined, peer: string | undefined): string {
  if (principal.kind === 'apiKey') return `key:${principal.keyId}`;
  if (principal.kind === 'user') {
    const token = createHash('sha256').update(authorization ?? '').digest('base64url').slice(0, 22);
    return `user:${principal.userId}:${token}`;
  }
  return `ip:${peer ?? 'unknown'}`;
}

interface Outcome {
  res: RateLimiterRes;
  refused: boolean;
  points: number;
}

function setHeaders(res: Response, outcome: Outcome): void {
  res.setHeader('RateLimit-Limit', String(outcome.points));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, outcome.res.remainingPoints)));
  res.setHeader('RateLimit-Reset', String(Math.ceil(outcome.res.msBeforeNext / 1000)));
}

/** 429 with `Retry-After`: the longest wait among the refusing windows. */
function refuse(res: Response, refused: Outcome[], onError: (res: Response, err: unknown) => void): void {
  const retryAfter = Math.max(1, ...refused.map((o) => Math.ceil(o.res.msBeforeNext / 1000)));
  res.setHeader('Retry-After', String(retryAfter));
  onError(res, new RateLimitedError(retryAfter));
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<Outcome> {
  try {
    return { res: await limiter.consume(key), refused: false, points: limiter.points };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { res: rejection, refused: true, points: limiter.points };
    throw rejection;
  }
}
