// Automatic persisted queries' texts, kept where Idempotency-Key can read them too (for mutations sent by hash).
import type { PersistedQueryOptions } from '@apollo/server';
import { LRUCache } from 'lru-cache';

type ApqCache = NonNullable<PersistedQueryOptions['cache']>;

/** As Apollo's own default store: about 32 MiB of query text per replica, least recently used dropped first. */
const MAX_BYTES = 32 * 1024 * 1024;
/** Apollo prefixes the keys it stores in a persisted-query cache (its `APQ_CACHE_PREFIX`). */
const APQ_PREFIX = 'apq:';

/**
 * The store Apollo keeps automatic persisted queries in (`persistedQueries.cache`), and a reader of it by hash. A
 * mutation sent by hash alone carries no text in its body; `Idempotency-Key` needs the text to know it is a mutation
 * and which members are secrets (packages/edge/src/idempotency.ts), and finds it here. A hash this replica has not
 * seen has no text: Apollo answers `PERSISTED_QUERY_NOT_FOUND` without running anything, and the client sends the text.
 */
export class PersistedQueries {
  private readonly texts = new LRUCache<string, string>({
    maxSize: MAX_BYTES,
    sizeCalculation: (value, key) => value.length + key.length,
  });

  /** For `new ApolloServer({ persistedQueries: { cache } })`. */
  readonly cache: ApqCache = {
    get: async (key) => this.texts.get(key),
    set: async (key, value, options) => {
      const ttl = options?.ttl ? options.ttl * 1000 : undefined;
      this.texts.set(key, value, ttl ? { ttl } : {});
    },
    delete: async (key) => this.texts.delete(key),
  };

  /** The text of a persisted query by its sha256 hash (hex), if this replica holds it. */
  textOf(sha256Hash: string): string | undefined {
    return this.texts.get(`${APQ_PREFIX}${sha256Hash}`);
  }
}
