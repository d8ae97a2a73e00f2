// The service's one configuration object: environment variables parsed and validated once with zod.
import { availableParallelism } from 'node:os';
import { z } from 'zod';

export const SUBGRAPH_NAMES = ['access', 'content', 'components', 'assets'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

/** Ports of the standalone subgraph services, also the routing URLs in the committed supergraph. */
export const DEFAULT_SUBGRAPH_PORTS: Record<SubgraphName, number> = {
  access: 4101,
  content: 4102,
  components: 4103,
  assets: 4104,
};

/** Empty strings count as unset, so `FOO=` in a .env file falls back to the default. */
const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
const int = (fallback: number) =>
  z.preprocess((v) => (v === '' || v === undefined ? fallback : Number(v)), z.number().int().positive());

/** `SUBGRAPH_URLS` is `name=url,name=url`; a subgraph not listed runs in-process. */
const subgraphUrls = z.preprocess(
  (v) => {
    if (typeof v !== 'string' || v.trim() === '') return {};
    return Object.fromEntries(v.split(',').map((pair) => pair.split('=').map((s) => s.trim())));
  },
  z.partialRecord(z.enum(SUBGRAPH_NAMES), z.url()),
);

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: int(4000).pipe(z.number().max(65535)).or(z.literal(0)),
    HOST: z.string().default('127.0.0.1'),
    HTTP_HEADERS_TIMEOUT_MS: int(5000),
    HTTP_REQUEST_TIMEOUT_MS: int(120_000),
    DATABASE_URL: optionalString.pipe(z.url().optional()),
    DATABASE_POOL_MAX: int(10),
    DATABASE_QUERY_TIMEOUT_MS: int(15_000),
    DATABASE_PROBE_INTERVAL_MS: int(1000),
    DATABASE_PROBE_TIMEOUT_MS: int(2000),
    DATABASE_PREPARED_STATEMENTS: z.enum(['on', 'off']).default('on'),
    DATA_DIR: z.string().default('./data'),
    ADMIN_EMAIL: z.email().default('admin@example.com'),
    ADMIN_PASSWORD: optionalString,
    JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    SUBGRAPH_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    JWT_TTL_SECONDS: int(8 * 3600),
    PUBLIC_URL: optionalString.pipe(z.url().optional()),
    CDN_URL: optionalString.pipe(z.url().optional()),
    SUBGRAPH_URLS: subgraphUrls,
    SUBGRAPH_PORT: z.preprocess(
      (v) => (v === '' || v === undefined ? undefined : Number(v)),
      z.number().int().positive().max(65535).optional(),
    ),
    REDIS_URL: optionalString.pipe(z.url().optional()),
    BROKER_TIMEOUT_MS: int(1000),
    BROKER_PUBLISH_WAIT_MS: int(250),
    BROKER_PROBE_INTERVAL_MS: int(1000),
    NATS_URL: optionalString.pipe(z.url().optional()),
    RATE_LIMIT_PER_MINUTE: int(600),
    RATE_LIMIT_PER_HOUR: int(30_000),
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: int(30),
    SIGN_IN_FAILURES_PER_ACCOUNT: int(10),
    SIGN_IN_FAILURE_WINDOW_SECONDS: int(15 * 60),
    AUTH_CACHE_TTL_SECONDS: z.preprocess(
      (v) => (v === '' || v === undefined ? 300 : Number(v)),
      z.number().int().min(0),
    ),
    MAX_UPLOAD_BYTES: int(50 * 1024 * 1024),
    STORAGE_URL: optionalString.pipe(
      z
        .string()
        .regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/, 'must be s3://<bucket>[/<prefix>]')
        .optional(),
    ),
    S3_ENDPOINT: optionalString.pipe(z.url().optional()),
    S3_REGION: z.string().default('us-east-1'),
    S3_FORCE_PATH_STYLE: z.preprocess((v) => v === '1' || v === 'true', z.boolean()),
    MAX_RESPONSE_BYTES: int(8 * 1024 * 1024),
    // Each transformation holds one of libuv's 4 pool threads, shared with file reads and password hashing: keep one free.
    IMAGE_TRANSFORM_CONCURRENCY: int(Math.min(availableParallelism(), 3)),
    IMAGE_TRANSFORM_QUEUE: z.preprocess((v) => (v === '' || v === undefined ? 64 : Number(v)), z.number().int().min(0)),
    EMBEDDINGS: z.enum(['local', 'off']).default('local'),
    EMBEDDINGS_API_KEY: optionalString,
    EMBEDDINGS_IDLE_SECONDS: z.coerce.number().int().min(0).default(120),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: z.preprocess((v) => v === '1' || v === 'true', z.boolean()),
    WEBHOOK_RETRY_BASE_MS: int(30_000),
    WEBHOOK_TIMEOUT_MS: int(10_000),
    CACHE: z.enum(['on', 'off']).default('on'),
    CACHE_MAX_BYTES: int(64 * 1024 * 1024),
    CACHE_CDN_MAX_AGE: z.preprocess((v) => (v === '' || v === undefined ? 0 : Number(v)), z.number().int().min(0)),
    GRAPHQL_IDE: z.enum(['on', 'off']).optional(),
    SHUTDOWN_TIMEOUT_MS: int(10_000),
    SHUTDOWN_GRACE_MS: z.preprocess((v) => (v === '' || v === undefined ? 5000 : Number(v)), z.number().int().min(0)),
    METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    METRICS_PORT: z.preprocess(
      (v) => (v === '' || v === undefined ? undefined : Number(v)),
      z.number().int().min(0).max(65535).optional(),
    ),
    METRICS_HOST: z.string().default('127.0.0.1'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(z.url().optional()),
    OTEL_SERVICE_NAME: optionalString,
  })
  .superRefine((e, ctx) => {
    // One event broker per deployment: with both set, one of them would be silently unused.
    if (e.REDIS_URL && e.NATS_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['NATS_URL'],
        message:
          'set REDIS_URL or NATS_URL, not both: each is a complete event broker (Redis also holds the rate limits)',
      });
    }
    // Node refuses a request deadline shorter than the headers' (the headers are part of the request).
    if (e.HTTP_REQUEST_TIMEOUT_MS < e.HTTP_HEADERS_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HTTP_REQUEST_TIMEOUT_MS'],
        message: 'must be at least HTTP_HEADERS_TIMEOUT_MS',
      });
    }
    // A user token must never pass as a gateway-vouched principal: the two keys differ.
    if (e.SUBGRAPH_SECRET && e.SUBGRAPH_SECRET === e.JWT_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['SUBGRAPH_SECRET'], message: 'must differ from JWT_SECRET' });
    }
  });

export interface Config {
  env: 'development' | 'production' | 'test';
  /**
   * `maxResponseBytes`: a GraphQL or REST answer above it is refused with BAD_REQUEST. `headersTimeoutMs`: a request
   * whose headers have not all arrived by then is answered 408 and its connection closed (a client trickling header
   * bytes holds a socket and memory for nothing); `requestTimeoutMs`: the same for the whole request, body included.
   */
  http: {
    port: number;
    host: string;
    publicUrl: string;
    cdnUrl: string;
    maxResponseBytes: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
  };
  /**
   * `queryTimeoutMs` (PostgreSQL only): a query without an answer by then fails, 503 at the edge, so a database that
   * stalls without closing its connections (a stopped process, a silent network) cannot hold requests; undefined: none.
   * `probe` (PostgreSQL only): every `intervalMs` a connection of its own runs `select 1`; no answer within `timeoutMs`
   * and the database counts as not answering (requests 503 at once, pooled connections dropped) until one comes.
   * `preparedStatements` (PostgreSQL only): the write path's fixed statements are parsed and planned once per
   * connection; off behind a pooler that cannot keep them (PgBouncer before 1.21, in transaction mode).
   */
  database: {
    url?: string;
    poolMax: number;
    dataDir: string;
    queryTimeoutMs?: number;
    probe: { intervalMs: number; timeoutMs: number };
    preparedStatements: boolean;
  };
  admin: { email: string; password?: string };
  /** `cacheTtlSeconds`: safety expiry of cached principals (changes invalidate them at once through events); 0 disables the cache. */
  /** `subgraphSecret`: signs the gateway's principal header to remote subgraph services (SUBGRAPH_SECRET). */
  auth: { jwtSecret?: string; subgraphSecret?: string; tokenTtlSeconds: number; cacheTtlSeconds: number };
  subgraphUrls: Partial<Record<SubgraphName, string>>;
  /** Port of a standalone subgraph service (`npm start -w subgraphs/<name>`); its default port when unset. */
  subgraphPort?: number;
  redisUrl?: string;
  natsUrl?: string;
  /**
   * Redis and NATS on the request path (circuit.ts). `timeoutMs`: the longest a request waits on a rate-limit or
   * sign-in counter in Redis, and a probe on any broker; `publishWaitMs`: the longest a write waits for its
   * announcement. The first call past its time-out opens the broker's circuit: later calls skip it at once (memory
   * counters, the outbox poll) until a probe, every `probeIntervalMs`, sees it answer.
   */
  brokers: { timeoutMs: number; publishWaitMs: number; probeIntervalMs: number };
  /** Per token or key; `anonymousPerMinute` per client IP for requests without a credential (sign-in). */
  rateLimit: {
    perMinute: number;
    perHour: number;
    anonymousPerMinute: number;
    /** Failed sign-ins per account (email), counted across every client address, within `signInWindowSeconds`. */
    signInFailures: number;
    signInWindowSeconds: number;
  };
  uploads: { maxBytes: number };
  /**
   * Where asset bytes, image variants and component assets live: `undefined` keeps them on local disk under
   * `DATA_DIR/assets`; otherwise an S3-compatible bucket (AWS S3, R2, MinIO, Ceph), keys under `prefix`.
   * Credentials come from the SDK's standard chain (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, profiles, roles).
   */
  storage?: { bucket: string; prefix: string; endpoint?: string; region: string; forcePathStyle: boolean };
  /** CDN image transformations: how many run at once in a process, and how many may wait for a slot. */
  images: { concurrency: number; queue: number };
  /** Semantic search: the local MiniLM model, a hosted OpenAI-compatible API (key), or off. */
  /** `idleSeconds`: the local model's thread is stopped after this long without work (0: never), freeing its memory. */
  embeddings: { enabled: boolean; apiKey?: string; idleSeconds: number };
  /**
   * Outbound webhooks: private/loopback targets refused unless allowed (SSRF); first retry delay, doubling after; how
   * long one attempt may take (an attempt's claim is leased for three times that).
   */
  webhooks: { allowPrivateTargets: boolean; retryBaseMs: number; attemptTimeoutMs: number };
  /**
   * Published-read cache of the client family (`/api/v1` GETs, API-key GraphQL queries): on/off and its byte budget;
   * `cdnMaxAge` is the `s-maxage` a shared cache may keep a response without revalidating (0: revalidate every use).
   */
  cache: { enabled: boolean; maxBytes: number; cdnMaxAge: number };
  /** GraphiQL at `GET /graphql` for browsers (`GRAPHQL_IDE`); off by default when `NODE_ENV=production`. */
  graphqlIde: boolean;
  /**
   * SIGTERM: for `graceMs` the process still serves (with `/ready` 503, `Connection: close`) so load balancers take it
   * out; then in-flight work gets `timeoutMs` to finish before the process exits. SIGINT (Ctrl-C) skips the grace window.
   */
  shutdown: { timeoutMs: number; graceMs: number };
  /** `/metrics`: bearer `token` on the service port, and/or a separate listener on `host:port` (loopback). */
  metrics: { token?: string; port?: number; host: string };
  logLevel: string;
  /**
   * OpenTelemetry: spans are exported over OTLP/HTTP to `endpoint` (the collector's base URL, `/v1/traces` is
   * appended) when it is set; unset, no OpenTelemetry SDK is loaded at all. `serviceName` overrides each process's own name.
   */
  tracing: { endpoint?: string; serviceName?: string };
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
  }
}

/** Parses the environment once; every error is reported together, then the caller stops. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/$/, '');
  return {
    env: e.NODE_ENV,
    http: {
      port: e.PORT,
      host: e.HOST,
      publicUrl,
      cdnUrl: (e.CDN_URL ?? `${publicUrl}/cdn`).replace(/\/$/, ''),
      maxResponseBytes: e.MAX_RESPONSE_BYTES,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    },
    database: {
      url: e.DATABASE_URL,
      poolMax: e.DATABASE_POOL_MAX,
      dataDir: e.DATA_DIR,
      queryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
      probe: { intervalMs: e.DATABASE_PROBE_INTERVAL_MS, timeoutMs: e.DATABASE_PROBE_TIMEOUT_MS },
      preparedStatements: e.DATABASE_PREPARED_STATEMENTS === 'on',
    },
    admin: { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD },
    auth: {
      jwtSecret: e.JWT_SECRET,
      subgraphSecret: e.SUBGRAPH_SECRET,
      tokenTtlSeconds: e.JWT_TTL_SECONDS,
      cacheTtlSeconds: e.AUTH_CACHE_TTL_SECONDS,
    },
    subgraphUrls: e.SUBGRAPH_URLS,
    subgraphPort: e.SUBGRAPH_PORT,
    redisUrl: e.REDIS_URL,
    natsUrl: e.NATS_URL,
    brokers: {
      timeoutMs: e.BROKER_TIMEOUT_MS,
      publishWaitMs: e.BROKER_PUBLISH_WAIT_MS,
      probeIntervalMs: e.BROKER_PROBE_INTERVAL_MS,
    },
    rateLimit: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      perHour: e.RATE_LIMIT_PER_HOUR,
      anonymousPerMinute: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      signInFailures: e.SIGN_IN_FAILURES_PER_ACCOUNT,
      signInWindowSeconds: e.SIGN_IN_FAILURE_WINDOW_SECONDS,
    },
    uploads: { maxBytes: e.MAX_UPLOAD_BYTES },
    storage: e.STORAGE_URL ? s3Storage(e.STORAGE_URL, e) : undefined,
    images: { concurrency: e.IMAGE_TRANSFORM_CONCURRENCY, queue: e.IMAGE_TRANSFORM_QUEUE },
    embeddings: {
      enabled: e.EMBEDDINGS === 'local' || Boolean(e.EMBEDDINGS_API_KEY),
      apiKey: e.EMBEDDINGS_API_KEY,
      idleSeconds: e.EMBEDDINGS_IDLE_SECONDS,
    },
    webhooks: {
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      attemptTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    cache: { enabled: e.CACHE === 'on', maxBytes: e.CACHE_MAX_BYTES, cdnMaxAge: e.CACHE_CDN_MAX_AGE },
    graphqlIde: (e.GRAPHQL_IDE ?? (e.NODE_ENV === 'production' ? 'off' : 'on')) === 'on',
    shutdown: { timeoutMs: e.SHUTDOWN_TIMEOUT_MS, graceMs: e.SHUTDOWN_GRACE_MS },
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT, host: e.METRICS_HOST },
    logLevel: e.LOG_LEVEL,
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/$/, ''), serviceName: e.OTEL_SERVICE_NAME },
  };
}
/** `s3://bucket/some/prefix` → the bucket and its key prefix (`some/prefix/`, empty for the bucket's root). */
function s3Storage(
  url: string,
  e: { S3_ENDPOINT?: string; S3_REGION: string; S3_FORCE_PATH_STYLE: boolean },
): NonNullable<Config['storage']> {
  const [bucket, ...rest] = url.slice('s3://'.length).split('/');
  const prefix = rest.filter(Boolean).join('/');
  return {
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    endpoint: e.S3_ENDPOINT,
    region: e.S3_REGION,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
  };
}

/** For a process's entry point: the configuration, or every error on stderr and exit 1 (a message, not a stack). */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

export * from './logger';
export * from './secrets';
export * from './connection-state';
export * from './circuit';
export * from './feed-gate';
export * from './feed-cache';
