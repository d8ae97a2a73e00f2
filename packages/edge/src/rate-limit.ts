// Rate limits: one budget per caller (user or API key) shared by REST, GraphQL and every replica; sign-in per IP and per account.
import { Circuit, connectionState, type Config, type Logger } from '@cp/config';
import { RateLimitedError } from '@cp/errors';
import { counter } from '@cp/metrics';
import type { Context } from '@cp/principal';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { NextFunction, Request, Response } from 'express';
import Redis from 'ioredis';
import { directBudget, leasedBudget, type Budget, type Take } from './rate-lease';
import { CircuitLimiter } from './circuit-limiter';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

export interface RateLimitOptions {
  config: Pick<Config, 'rateLimit' | 'redisUrl' | 'brokers'>;
  orm: MikroORM;
  /** PGlite: one process owns the database, so an in-memory store is already shared by every request. */
  embedded: boolean;
  logger: Logger;
}

export interface RateLimiter {
  /** Express middleware; runs after authentication (it reads `res.locals.context`). */
  middleware(onError: (res: Response, err: unknown) => void): (req: Request, res: Response, next: NextFunction) => void;
  /**
   * Wraps the answer to a failed authentication: the failure counts against the caller's address on the anonymous
   * budget, so guessing tokens or keys is throttled like guessing passwords (429 once it is spent).
   */
  onAuthFailure(onError: (res: Response, err: unknown) => void): (res: Response, err: unknown) => Promise<void>;
  /**
   * For transports without an HTTP response (graphql-ws connections and subscriptions): spends one request of the
   * caller's budget and answers whether it fitted. `peer` is the remote address (the budget of anonymous callers).
   */
  allow(principal: Context['principal'], peer: string | undefined): Promise<boolean>;
  /** Failed sign-ins per account, in the same shared store; the access subgraph wraps it (`limiterSignInThrottle`). */
  signInLimiter: RateLimiterAbstract;
  /** Which store holds the counters: `postgres`, `redis` or `memory`. */
  store: 'postgres' | 'redis' | 'memory';
  /**
   * False while Redis (the `redis` store) is down or stalls (a command or PING unanswered within BROKER_TIMEOUT_MS):
   * the in-memory limiters count meanwhile, so `/ready` says `degraded` at 200 rather than taking the replica out.
   * Always true for the others (PostgreSQL's own outage is the database's, `/ready` 503).
   */
  storeUp(): boolean;
  close(): Promise<void>;
}

/** UNLOGGED, created by the core migration `Migration20261124110000_rate_limit_unlogged`. */
const TABLE = 'rate_limit';

/**
 * Redis when `REDIS_URL` is set (both windows' commands go out in one pipelined round trip), else the service's
 * PostgreSQL in an UNLOGGED table (a counter upsert writes no WAL and its commit waits for no disk flush, see
 * bench/RESULTS.md), else (PGlite, one process) memory.
 */
export async function createRateLimiter(options: RateLimitOptions): Promise<RateLimiter> {
  const { perMinute, perHour, anonymousPerMinute, signInFailures, signInWindowSeconds } = options.config.rateLimit;
  const windows: IRateLimiterOptions[] = [
    { keyPrefix: 'rl_min', points: perMinute, duration: 60 },
    { keyPrefix: 'rl_hour', points: perHour, duration: 3600 },
  ];
  const anonymousWindow: IRateLimiterOptions = { keyPrefix: 'rl_anon', points: anonymousPerMinute, duration: 60 };

  let redis: Redis | undefined;
  let circuit: Circuit | undefined;
  let store: RateLimiter['store'];
  let make: (o: IRateLimiterOptions) => Promise<RateLimiterAbstract>;
  if (options.config.redisUrl) {
    store = 'redis';
    const { timeoutMs, probeIntervalMs } = options.config.brokers;
    redis = new Redis(options.config.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      enableAutoPipelining: true,
      // The circuit below bounds every call; the client's own, longer time-out only frees an abandoned command (were
      // it as short, it would fire beside the circuit's and skip its patience with a busy event loop). Keepalive finds
      // a dead peer.
      commandTimeout: 2 * timeoutMs,
      keepAlive: 10_000,
    });
    // While Redis is down the in-memory limiters count; without these listeners ioredis would print every failed
    // reconnect's stack to stderr ("Unhandled error event").
    const state = connectionState(options.logger, 'rate-limit store (Redis)');
    redis.on('error', (err: Error) => state.markDown(err));
    redis.on('ready', () => state.markUp());
    const client = redis;
    // A Redis that stops answering without closing its connection (a stopped process, a silent network, a stuck
    // failover) reports no error: its commands only go unanswered. The first that times out opens the circuit, and
    // every budget and sign-in counter is then this process's memory at once, until a PING is answered.
    const breaker = (circuit = new Circuit(state, {
      name: 'rate-limit store (Redis)',
      timeoutMs,
      probeIntervalMs,
      probe: () => client.ping(),
    }));
    make = async (o) => new CircuitLimiter(new RateLimiterRedis({ ...o, storeClient: client }), breaker);
  } else if (!options.embedded) {
    store = 'postgres';
    // MikroORM's knex instance: the limiter borrows connections from the service's own pool.
    const knex = options.orm.em.getConnection().getKnex();
    // The table exists (migration), so nothing is created here.
    make = async (o) =>
      new RateLimiterPostgres({
        ...o,
        storeClient: knex,
        storeType: 'knex',
        tableName: TABLE,
        tableCreated: true,
        clearExpiredByTimeout: true,
        insuranceLimiter: new RateLimiterMemory(o),
      });
  } else {
    store = 'memory';
    make = async (o) => new RateLimiterMemory(o);
  }
  // Callers' budgets are leased from a shared store (one round trip per 1 % of a budget, rate-lease.ts); anonymous
  // budgets are small and stay exact.
  const perToken: Budget[] = [];
  for (const w of windows)
    perToken.push(store === 'memory' ? directBudget(await make(w)) : leasedBudget(await make(w)));
  const anonymous = directBudget(await make(anonymousWindow));
  const signIn = await make({ keyPrefix: 'rl_signin', points: signInFailures, duration: signInWindowSeconds });
  options.logger.info(
    { store, perMinute, perHour, anonymousPerMinute, signInFailures, signInWindowSeconds },
    'rate limits ready',
  );

  /** One request from every window of the caller's budget: at once when every window answers from memory. */
  const spend = (principal: Context['principal'], peer: string | undefined): Outcome[] | Promise<Outcome[]> => {
    const key = budgetKey(principal, peer);
    const taken = (principal.kind === 'anonymous' ? [anonymous] : perToken).map((budget) => consume(budget, key));
    return taken.some((t) => t instanceof Promise) ? Promise.all(taken) : (taken as Outcome[]);
  };

  /** Sets `RateLimit-*` from the outcomes; true when every window admitted the request, else answers the 429. */
  const decide = (outcomes: Outcome[], res: Response, onError: (res: Response, err: unknown) => void): boolean => {
    // The headers describe the tightest window: the one with the fewest requests left.
    setHeaders(
      res,
      outcomes.reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a)),
    );
    const refused = outcomes.filter((o) => o.refused);
    if (refused.length === 0) return true;
    refuse(res, refused, onError);
    return false;
  };

  return {
    store,
    storeUp: () => circuit?.up ?? true,
    signInLimiter: signIn,
    middleware(onError) {
      return (req, res, next) => {
        const outcomes = spend((res.locals.context as Context).principal, req.socket.remoteAddress);
        if (!(outcomes instanceof Promise)) return void (decide(outcomes, res, onError) && next());
        // A store that fails, or an answer that throws, reaches the error handler: never a hanging request.
        outcomes.then((taken) => decide(taken, res, onError) && next(), next).catch(next);
      };
    },
    async allow(principal, peer) {
      return (await spend(principal, peer)).every((o) => !o.refused);
    },
    onAuthFailure(onError) {
      return async (res, err) => {
        const outcome = await Promise.resolve(
          consume(anonymous, `ip:${res.req.socket.remoteAddress ?? 'unknown'}`),
        ).catch(() => undefined);
        if (!outcome?.refused) return onError(res, err);
        setHeaders(res, outcome);
        refuse(res, [outcome], onError);
      };
    },
    async close() {
      circuit?.close();
      redis?.disconnect();
    },
  };
}

/**
 * The budget belongs to who authenticated the request, never to a header the client can vary freely:
 * a user's id (every token of the user, including ones minted with `POST /app/v1/auth/tokens` and any spelling of
 * the `Authorization` header, shares it: "per token or key" means per caller identity), a key's id, or —
 * without a credential — the TCP peer address (`X-Forwarded-For` is ignored: anyone can set it).
 */
function budgetKey(principal: Context['principal'], peer: string | undefined): string {
  if (principal.kind === 'apiKey') return `key:${principal.keyId}`;
  if (principal.kind === 'user') return `user:${principal.organizationId}:${principal.userId}`;
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

const refusals = counter(
  'cp_rate_limit_refusals_total',
  'Requests refused by a rate-limit window (rl_min, rl_hour, rl_anon).',
  ['window'],
);

function consume(budget: Budget, key: string): Outcome | Promise<Outcome> {
  const outcome = ({ res, refused }: Take): Outcome => {
    if (refused) refusals.inc({ window: budget.keyPrefix });
    return { res, refused, points: budget.points };
  };
  const taken = budget.take(key);
  return taken instanceof Promise ? taken.then(outcome) : outcome(taken);
}
