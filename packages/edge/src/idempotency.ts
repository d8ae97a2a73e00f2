// Idempotent retries at the edge of every host (gateway, standalone subgraph services): `Idempotency-Key` on
// /app/v1 POSTs, uploads included, and GraphQL mutations; answers kept in PostgreSQL, shared by all hosts.
import type { Logger } from '@cp/config';
import { sql, type InsertedEventsSubscriber } from '@cp/db';
import { AppError, BadRequestError, ForbiddenError } from '@cp/errors';
import { GRAPHQL_LIMITS } from '@cp/graphql';
import type { Context } from '@cp/principal';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { NextFunction, Response } from 'express';
import {
  getOperationAST,
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { BodyRequest } from './request-body';
import { addEndStep, respond } from './response-seam';

const TTL_HOURS = 24;
/**
 * A `running` claim older than this belongs to a request that died with its process (kill -9, crash): the key may be
 * taken over. Longer than any request runs (component compilation has a few seconds' deadline, bodies are ≤ 1 MiB).
 */
const ABANDONED_AFTER_SECONDS = 120;
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** Response headers a replay repeats; the others (request id, rate limits) describe the new request. */
const REPLAYED_HEADERS = ['content-type', 'etag', 'location'];

/**
 * A key's states: `running` (claimed, nothing committed yet: a retry after a crash may run it again), `committed` (a
 * transaction of the request committed a change: it must never run again, see `markCommitted`), `done` (the answer is
 * stored) and `lost` (a change committed but the answer is a 5xx, which is not stored).
 */
type KeyState = 'running' | 'committed' | 'done' | 'lost';

interface StoredKey {
  fingerprint: string;
  state: KeyState;
  /** The claim is older than `ABANDONED_AFTER_SECONDS`: its process died. */
  abandoned: boolean;
  response_status: number | null;
  response_headers: Record<string, string> | string | null;
  response_body: string | null;
  permissions: string[] | string | null;
}

export interface IdempotencyOptions {
  orm: MikroORM;
  logger: Logger;
  /**
   * How the request body enters the fingerprint: `raw` its bytes as the body reader kept them (REST,
   * request-body.ts), `parsed` the parsed GraphQL body, `none` not at all (multipart uploads, streamed to their route).
   */
  body: 'raw' | 'parsed' | 'none';
  /** Only GraphQL mutations take part on /graphql; queries run as usual. */
  graphql?: boolean;
  /**
   * GraphQL: the text of an automatic persisted query by its sha256 hash, for a body that sends the hash alone
   * (Apollo's store on this host); without it, or when the host has not seen the hash, such a body is let through.
   */
  persistedQuery?(sha256Hash: string): string | undefined;
  /** Answers a refused key (400, 409, 422) in the route's own error shape. */
  onError(res: Response, err: unknown): void;
  /**
   * A key space of its own within the caller's (`user:<id>` becomes `user:<id> <scope>`): a standalone service's
   * `/graphql` behind a federation gateway gets one part of a client's mutation, and the gateway sends the same key
   * with each subgraph's part (docs/operating/federation-gateways.md).
   */
  scope?: string;
}

/** Keys are per caller: the user behind the token (API keys cannot write; anonymous requests, i.e. sign-in, never take part). */
function callerOf(context: Context | undefined): string | undefined {
  const p = context?.principal;
  if (p?.kind === 'user') return `user:${p.userId}`;
  if (p?.kind === 'apiKey') return `key:${p.keyId}`;
  return undefined;
}

/** The claim of the request being handled, for the write transactions it runs (`markCommitted`). */
const claims = new AsyncLocalStorage<{ caller: string; key: string }>();
const marking = new WeakSet<MikroORM>();

/**
 * The claim is stored in its own statement and the answer after the change committed, so a process killed between the
 * change's commit and the answer's storing would leave a `running` claim that a retry takes over once abandoned: the
 * change would run twice. Every transaction of the request that flushed changes therefore moves its claim to
 * `committed` before it commits, in that transaction: the claim says `running` only while nothing has committed.
 */
function markCommitted(orm: MikroORM): void {
  if (marking.has(orm)) return;
  marking.add(orm);
  const mark = (em: EntityManager, claim: { caller: string; key: string }, transaction: unknown) =>
    em
      .getConnection()
      .execute(
        `update "idempotency_key" set "state" = 'committed' where "caller" = ? and "key" = ? and "state" = 'running'`,
        [claim.caller, claim.key],
        'run',
        transaction as never,
      );
  // A flush outside a transaction opens its own after `onFlush`: its mark waits for that one's commit.
  const pending = new WeakSet<EntityManager>();
  const subscriber: InsertedEventsSubscriber = {
    // Changes written as plain rows insert their events themselves, always in a transaction.
    async eventsInserted(tx) {
      const claim = claims.getStore();
      if (claim) await mark(tx, claim, tx.getTransactionContext());
    },
    async onFlush(args) {
      const claim = claims.getStore();
      if (!claim || args.uow.getChangeSets().length === 0) return;
      const em = args.em as EntityManager;
      const transaction = em.getTransactionContext();
      if (transaction) await mark(em, claim, transaction);
      else pending.add(em);
    },
    async beforeTransactionCommit(args) {
      const claim = claims.getStore();
      const em = args.em as EntityManager;
      if (!claim || !pending.has(em)) return;
      pending.delete(em);
      await mark(em, claim, args.transaction);
    },
  };
  orm.em.getEventManager().registerSubscriber(subscriber);
}

/** The key of the claim the request being handled holds: our gateway signs it into calls to subgraph services. */
export function currentIdempotencyKey(): string | undefined {
  return claims.getStore()?.key;
}

/**
 * A subgraph service's request that our gateway vouched for with its claim's key (`Authenticated.idempotencyKey`):
 * the gateway keeps the answer, but the commit happens here, so this service's write transactions mark the gateway's
 * claim (same caller, same key) `committed`.
 */
export function underGatewayClaim(orm: MikroORM, context: Context | undefined, key: string, next: () => void): void {
  markCommitted(orm);
  const caller = callerOf(context);
  if (!caller) return next();
  claims.run({ caller, key }, next);
}

export function idempotency(options: IdempotencyOptions) {
  markCommitted(options.orm);
  // Statements of their own, never inside a request's transaction (a fork does not follow the request's context);
  // each text is fixed, so prepared once per connection.
  const em = options.orm.em.fork();
  const run = <T>(query: string, params: unknown[]) => sql<T>(em, query, params, true);

  return async (req: BodyRequest, res: Response, next: NextFunction) => {
    const key = req.header('idempotency-key');
    if (key === undefined || req.method !== 'POST') return next();
    try {
      const principal = callerOf(res.locals.context as Context | undefined);
      if (!principal) return next();
      const caller = options.scope ? `${principal} ${options.scope}` : principal;
      if (!VALID_KEY.test(key)) {
        throw new BadRequestError('Idempotency-Key must be 1 to 255 printable ASCII characters.', {
          parameter: 'Idempotency-Key',
        });
      }
      const mutation = options.graphql ? mutationIn(req.body, options.persistedQuery) : undefined;
      if (options.graphql && !mutation) return next();
      const secrets = mutation ? secretPaths(mutation.document, mutation.operation) : REST_SECRET_PATHS;
      const fingerprint = fingerprintOf(req, options, mutation?.text);

      const claimed = await run<{ key: string }>(
        `insert into "idempotency_key" ("caller", "key", "fingerprint", "state", "started_at", "expires_at")
         values (?, ?, ?, 'running', now(), now() + interval '${TTL_HOURS} hours')
         on conflict ("caller", "key") do update set "fingerprint" = excluded."fingerprint", "state" = 'running',
           "response_status" = null, "response_headers" = null, "response_body" = null, "started_at" = now(), "expires_at" = excluded."expires_at"
         where "idempotency_key"."expires_at" < now()
            or ("idempotency_key"."state" = 'running' and "idempotency_key"."started_at" < now() - interval '${ABANDONED_AFTER_SECONDS} seconds'
                and "idempotency_key"."fingerprint" = excluded."fingerprint")
         returning "key"`,
        [caller, key, fingerprint],
      );
      if (claimed.length === 0) {
        const [stored] = await run<StoredKey>(
          `select "fingerprint", "state", "response_status", "response_headers", "response_body", "permissions",
                  "started_at" < now() - interval '${ABANDONED_AFTER_SECONDS} seconds' as "abandoned"
             from "idempotency_key" where "caller" = ? and "key" = ?`,
          [caller, key],
        );
        if (!stored)
          throw new AppError(
            'IDEMPOTENCY_KEY_IN_USE',
            'The request with this Idempotency-Key is being retried; try again.',
          );
        if (stored.fingerprint !== fingerprint) {
          throw new AppError('IDEMPOTENCY_KEY_REUSED', undefined, { key });
        }
        // Its change committed and its answer never will be kept (its process died, or the answer was a 5xx): running
        // it again would repeat the change, so the retry is told to read the resource instead.
        if (stored.state === 'lost' || (stored.state === 'committed' && stored.abandoned))
          throw new AppError('IDEMPOTENCY_ANSWER_LOST', undefined, { key });
        if (stored.state !== 'done') throw new AppError('IDEMPOTENCY_KEY_IN_USE', undefined, { key });
        assertStillGranted(res.locals.context as Context, stored);
        return replay(res, stored);
      }
      const context = res.locals.context as Context;
      // Created here so that the copies of the context the resolvers get share it, and grants they record land here.
      context.granted ??= new Set();
      record(
        res,
        async (status, headers, body) => {
          // 5xx answers are not kept: a retry runs the request again, unless a change of it committed already.
          if (status >= 500) {
            await run(`delete from "idempotency_key" where "caller" = ? and "key" = ? and "state" = 'running'`, [
              caller,
              key,
            ]);
            await run(
              `update "idempotency_key" set "state" = 'lost' where "caller" = ? and "key" = ? and "state" = 'committed'`,
              [caller, key],
            );
            return;
          }
          const granted = JSON.stringify([...(context.granted ?? [])]);
          await run(
            `update "idempotency_key" set "state" = 'done', "response_status" = ?, "response_headers" = ?::jsonb, "response_body" = ?, "permissions" = ?::jsonb where "caller" = ? and "key" = ?`,
            [status, JSON.stringify(headers), withoutSecrets(body, secrets), granted, caller, key],
          );
        },
        options.logger,
      );
      claims.run({ caller, key }, next);
    } catch (err) {
      options.onError(res, err);
    }
  };
}

/**
 * The mutation a GraphQL request's body names, from its text (or, for an automatic persisted query sent as its hash,
 * the text the host holds for it). A body without one (a query, a syntax error Apollo answers, a hash the host has not
 * seen, which Apollo answers `PERSISTED_QUERY_NOT_FOUND` without running it) is undefined: the middleware lets it
 * through. Also how the response size limit tells a write's answer.
 */
export function mutationIn(
  body: unknown,
  persistedQuery: IdempotencyOptions['persistedQuery'],
): { document: DocumentNode; operation: OperationDefinitionNode; text: string } | undefined {
  const { operationName, extensions, ...rest } = (body ?? {}) as {
    query?: unknown;
    operationName?: unknown;
    extensions?: { persistedQuery?: { sha256Hash?: unknown } };
  };
  const hash = extensions?.persistedQuery?.sha256Hash;
  const query =
    typeof rest.query === 'string' ? rest.query : typeof hash === 'string' ? persistedQuery?.(hash) : undefined;
  if (typeof query !== 'string') return undefined;
  try {
    // Apollo's own token limit: a longer text is its parse error to answer, not ours to walk.
    const document = parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    const operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined);
    return operation?.operation === 'mutation' ? { document, operation, text: query } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * sha256 over method, path with query string, `If-Match` when sent (the same key with another precondition is
 * another request), and the body (raw bytes for REST; for GraphQL, the mutation’s text, operation name and variables).
 */
export function fingerprintOf(
  req: BodyRequest,
  options: Pick<IdempotencyOptions, 'body'>,
  graphqlText?: string,
): string {
  const hash = createHash('sha256').update(`${req.method} ${req.originalUrl}\n`);
  const ifMatch = req.header('if-match');
  if (ifMatch !== undefined) hash.update(`If-Match: ${ifMatch}\n`);
  if (options.body === 'parsed') {
    // A GraphQL mutation by what it runs: its text (sent, or found by its persisted-query hash), operation and
    // variables. An Apollo client sends a persisted query by hash first and with its text after a miss, so a retry may
    // come either way; both are the same request.
    const { operationName = null, variables = null } = (req.body ?? {}) as Record<string, unknown>;
    const graphql = graphqlText === undefined ? req.body : { query: graphqlText, operationName, variables };
    hash.update(JSON.stringify(graphql ?? null));
  }
  if (options.body === 'none')
    hash.update(`${req.header('content-type')?.split(';')[0] ?? ''} ${req.header('content-length') ?? ''}`);
  if (options.body === 'raw' && req.rawBody) hash.update(req.rawBody);
  return hash.digest('hex');
}

/**
 * Fields whose value is a secret shown once: an API key's `key`, an issued token's `token`, a webhook's signing
 * `secret`. Every output field of these names in the schema is one; their values are never stored.
 */
const SECRET_FIELDS = ['key', 'token', 'secret'];

/** A REST answer is the mutation's object itself: its secrets are its members of those names. */
const REST_SECRET_PATHS: readonly (readonly string[])[] = SECRET_FIELDS.map((name) => [name]);

/**
 * Selections the walk below may visit. It runs before Apollo's limits (depth, cost): fragments that each spread the
 * next one twice would make it visit 2ⁿ selections, and a kilobyte of text would hold the process for minutes. No
 * mutation a client means to send comes near it (Apollo's own cost limit is 5,000).
 */
export const MAX_SECRET_WALK = 10_000;

/**
 * Where a GraphQL mutation's answer holds its secrets: the response path (under `data`) of every secret field it
 * selects, by alias when it has one, through inline fragments and named ones. Paths run through lists too. A document
 * past `MAX_SECRET_WALK` selections is refused (400) before it runs.
 */
export function secretPaths(document: DocumentNode, operation: OperationDefinitionNode): string[][] {
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const paths: string[][] = [];
  let visited = 0;
  const walk = (set: SelectionSetNode, path: string[], spread: ReadonlySet<string>) => {
    for (const selection of set.selections) {
      if (++visited > MAX_SECRET_WALK) {
        throw new BadRequestError('The mutation selects too much to be kept for a retry with Idempotency-Key.', {
          limit: 'selections',
          max: MAX_SECRET_WALK,
        });
      }
      if (selection.kind === Kind.FIELD) {
        const at = [...path, selection.alias?.value ?? selection.name.value];
        if (selection.selectionSet) walk(selection.selectionSet, at, spread);
        else if (SECRET_FIELDS.includes(selection.name.value)) paths.push(at);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, path, spread);
      } else {
        // A fragment spread within itself is invalid (Apollo refuses it); the walk stops rather than loops.
        const fragment = fragments.get(selection.name.value);
        if (fragment && !spread.has(fragment.name.value))
          walk(fragment.selectionSet, path, new Set([...spread, fragment.name.value]));
      }
    }
  };
  walk(operation.selectionSet, ['data'], new Set());
  return paths;
}

/** The stored form of an answer: without the strings (or lists of them) at `paths` (`secretPaths`, `REST_SECRET_PATHS`). */
export function withoutSecrets(body: string, paths: readonly (readonly string[])[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  const drop = (value: unknown, path: readonly string[]): void => {
    if (Array.isArray(value)) return value.forEach((item) => drop(item, path));
    if (!value || typeof value !== 'object' || !Object.hasOwn(value, path[0])) return;
    const object = value as Record<string, unknown>;
    if (path.length > 1) return drop(object[path[0]], path.slice(1));
    const leaf = object[path[0]];
    if (typeof leaf === 'string' || (Array.isArray(leaf) && leaf.every((v) => typeof v === 'string')))
      delete object[path[0]];
  };
  for (const path of paths) drop(parsed, path);
  return JSON.stringify(parsed);
}

/** A replay is answered only while the caller still holds every permission the first request was authorized by. */
function assertStillGranted(context: Context, stored: StoredKey): void {
  const needed = (
    typeof stored.permissions === 'string' ? JSON.parse(stored.permissions) : (stored.permissions ?? [])
  ) as string[];
  const principal = context.principal;
  for (const flag of needed) {
    const [resource, action] = flag.split('.');
    const flags =
      principal.kind === 'user'
        ? (principal.permissions as Record<string, Record<string, boolean> | undefined>)[resource]
        : undefined;
    if (!flags?.[action]) throw new ForbiddenError(resource, action);
  }
}

function replay(res: Response, stored: StoredKey): void {
  const headers =
    typeof stored.response_headers === 'string' ? JSON.parse(stored.response_headers) : (stored.response_headers ?? {});
  for (const [name, value] of Object.entries(headers as Record<string, string>)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  respond(res.status(stored.response_status ?? 200), stored.response_body ?? '');
}

/** Holds the end of the response until its status and body are stored, so a retry right after it sees them. */
function record(
  res: Response,
  store: (status: number, headers: Record<string, string>, body: string) => Promise<void>,
  logger: Logger,
): void {
  addEndStep(res, {
    end(ending) {
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = res.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      return store(res.statusCode, headers, ending.body?.toString('utf8') ?? '').catch((err) =>
        logger.error({ err }, 'storing an idempotent response failed'),
      );
    },
  });
}

/** Removes expired keys now and then; every replica may run it (the delete is idempotent). */
export function startIdempotencyCleanup(orm: MikroORM, logger: Logger, everyMs = 10 * 60_000) {
  const sweep = () =>
    orm.em
      .getConnection()
      .execute(`delete from "idempotency_key" where "expires_at" < now()`)
      .catch((err) => logger.warn({ err }, 'idempotency key cleanup failed'));
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  void sweep();
  return { stop: () => clearInterval(timer) };
}
