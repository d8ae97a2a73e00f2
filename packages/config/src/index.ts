// The service's one configuration object: environment variables (D14) parsed and validated once with zod.
import { z } from 'zod';

export const SUBGRAPH_NAMES = ['access', 'content', 'components', 'assets'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

/** Ports of the standalone subgraph services, also the routing URLs in the committed supergraph. */
export const DEFAULT_SUBGRAPH_PORTS: Record<SubgraphName, number> = { access: 4101, content: 4102, components: 4103, assets: 4104 };

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

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(4000).pipe(z.number().max(65535)).or(z.literal(0)),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: optionalString.pipe(z.url().optional()),
  DATABASE_POOL_MAX: int(10),
  DATA_DIR: z.string().default('./data'),
  ADMIN_EMAIL: z.email().default('admin@example.com'),
  ADMIN_PASSWORD: optionalString,
  JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  JWT_TTL_SECONDS: int(8 * 3600),
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  CDN_URL: optionalString.pipe(z.url().optional()),
  SUBGRAPH_URLS: subgraphUrls,
  SUBGRAPH_PORT: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().int().positive().max(65535).optional()),
  REDIS_URL: optionalString.pipe(z.url().optional()),
  NATS_URL: optionalString.pipe(z.url().optional()),
  RATE_LIMIT_PER_MINUTE: int(600),
  RATE_LIMIT_PER_HOUR: int(30_000),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: int(30),
  MAX_UPLOAD_BYTES: int(50 * 1024 * 1024),
  EMBEDDINGS: z.enum(['local', 'off']).default('local'),
  EMBEDDINGS_API_KEY: optionalString,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.preprocess((v) => v === '1' || v === 'true', z.boolean()),
  WEBHOOK_RETRY_BASE_MS: int(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  env: 'development' | 'production' | 'test';
  http: { port: number; host: string; publicUrl: string; cdnUrl: string };
  database: { url?: string; poolMax: number; dataDir: string };
  admin: { email: string; password?: string };
  auth: { jwtSecret?: string; tokenTtlSeconds: number };
  subgraphUrls: Partial<Record<SubgraphName, string>>;
  /** Port of a standalone subgraph service (`npm start -w subgraphs/<name>`); its default port when unset. */
  subgraphPort?: number;
  redisUrl?: string;
  natsUrl?: string;
  /** Per token or key; `anonymousPerMinute` per client IP for requests without a credential (sign-in). */
  rateLimit: { perMinute: number; perHour: number; anonymousPerMinute: number };
  uploads: { maxBytes: number };
  /** Semantic search: the local MiniLM model, a hosted OpenAI-compatible API (key), or off. */
  embeddings: { enabled: boolean; apiKey?: string };
  /** Outbound webhooks: private/loopback targets refused unless allowed (SSRF); first retry delay, doubling after. */
  webhooks: { allowPrivateTargets: boolean; retryBaseMs: number };
  logLevel: string;
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
    http: { port: e.PORT, host: e.HOST, publicUrl, cdnUrl: (e.CDN_URL ?? `${publicUrl}/cdn`).replace(/\/$/, '') },
    database: { url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX, dataDir: e.DATA_DIR },
    admin: { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD },
    auth: { jwtSecret: e.JWT_SECRET, tokenTtlSeconds: e.JWT_TTL_SECONDS },
    subgraphUrls: e.SUBGRAPH_URLS,
    subgraphPort: e.SUBGRAPH_PORT,
    redisUrl: e.REDIS_URL,
    natsUrl: e.NATS_URL,
    rateLimit: { perMinute: e.RATE_LIMIT_PER_MINUTE, perHour: e.RATE_LIMIT_PER_HOUR, anonymousPerMinute: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE },
    uploads: { maxBytes: e.MAX_UPLOAD_BYTES },
    embeddings: { enabled: e.EMBEDDINGS === 'local' || Boolean(e.EMBEDDINGS_API_KEY), apiKey: e.EMBEDDINGS_API_KEY },
    webhooks: { allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: e.WEBHOOK_RETRY_BASE_MS },
    logLevel: e.LOG_LEVEL,
  };
}
export * from './logger';
export * from './secrets';
