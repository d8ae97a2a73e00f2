// Keeps content embeddings current off the request path: entries changed since their embedding are re-embedded in batches.
import type { Logger } from '@cp/config';
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PollingWorker } from '@cp/db';
import type { Embedder } from './embedder';

const BATCH = 16;
const MAX_TEXT = 2000;
/**
 * In the background the indexer rests this many times as long as each batch took before the next: under a stream of
 * writes it would otherwise embed without pause, half a core of two in the write benchmark (bench/writes.mjs), taken
 * from the requests. Entries changed meanwhile are embedded once, in their latest state, when it gets to them.
 */
const REST_FACTOR = 3;
const MAX_REST_MS = 2000;

type Sql = ReturnType<MikroORM['em']['getConnection']>;

interface Pending {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  description: string | null;
  content: unknown;
  updated_at: Date;
}

/** Name, description and every string in the document: what a reader would call the entry's text. */
export function textOf(entry: { name: string; description?: string | null; content: unknown }): string {
  const strings: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(entry.content);
  return [entry.name, entry.description ?? '', ...strings].join('\n').slice(0, MAX_TEXT);
}

export class EmbeddingIndexer extends PollingWorker {
  private lastBatchMs = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly embedder: Embedder,
    logger?: Logger,
    pollMs = 1000,
  ) {
    // Embeddings follow `updatedAt` of entries written here; other processes index their own writes.
    super({ name: 'embeddings', what: 'embedding content', pollMs, kickOn: ['commit'], logger });
  }

  // `stop()` (PollingWorker) finishes the batch being embedded and starts no other.
  /** Working copies, then published versions; in the background resting between batches (the writers' CPU). */
  protected async pass(resting = true): Promise<void> {
    await this.catchUpOn(WORKING, resting);
    await this.catchUpOn(PUBLISHED, resting);
  }

  /** Resolves once every entry changed before the call has a current embedding; goes flat out (no rest). */
  override async flush(): Promise<void> {
    await this.settle();
    await this.pass(false);
  }

  private async catchUpOn(source: { select: string; table: string }, resting: boolean): Promise<void> {
    const conn = this.orm.em.fork().getConnection();
    for (let first = true; !this.stopping; first = false) {
      // Rested before reading, so the batch has the entries' latest state; capped so that stopping never waits long.
      const rest = Math.min(REST_FACTOR * this.lastBatchMs, MAX_REST_MS);
      if (resting && !first) await new Promise((r) => setTimeout(r, rest));
      if (this.stopping) return;
      const began = performance.now();
      const rows = await conn.execute<Pending[]>(`${source.select} limit ${BATCH}`);
      if (rows.length === 0) return;
      const texts = rows.map((r) => textOf(r));
      const hashes = texts.map((text) => textHash(this.embedder.model, text));
      const vectors = await storedVectors(conn, rows, hashes);
      const missing = [...new Set(texts.filter((_, i) => !vectors[i]))];
      const fresh = await this.embedder.embed(missing);
      const embedded = new Map(missing.map((text, i) => [text, fresh[i]]));
      for (const [i, row] of rows.entries()) {
        const vector = vectors[i] ?? embedded.get(texts[i])!;
        await conn.execute(
          `insert into "${source.table}" ("content_id", "organization_id", "project_id", "vector", "text_hash", "source_updated_at") values (?, ?, ?, ?::real[], ?, ?)
           on conflict ("content_id") do update set "vector" = excluded."vector", "text_hash" = excluded."text_hash", "source_updated_at" = excluded."source_updated_at"`,
          [row.id, row.organization_id, row.project_id, `{${vector.join(',')}}`, hashes[i], row.updated_at],
        );
      }
      // The whole batch, statements included: a run of batches that reuse every vector rests too.
      this.lastBatchMs = performance.now() - began;
    }
  }
}

/** Names the model and the text: equal hashes, equal vectors. */
export const textHash = (model: string, text: string) =>
  createHash('sha256').update(`${model}\0${text}`).digest('base64url');

/**
 * For each row, the vector already stored for its text: its own (a publish or a tag edit changes `updated_at`, not
 * the text), or the other table's (a publish of a working copy indexed before). The model is the expensive part of
 * indexing, and with a hosted API the paid one.
 */
async function storedVectors(conn: Sql, rows: Pending[], hashes: string[]): Promise<(number[] | undefined)[]> {
  const marks = rows.map(() => '?').join(', ');
  const ids = rows.map((r) => r.id);
  const stored = await conn.execute<Stored[]>(
    `select "content_id", "text_hash", "vector" from "content_embedding" where "content_id" in (${marks})
     union all
     select "content_id", "text_hash", "vector" from "published_content_embedding" where "content_id" in (${marks})`,
    [...ids, ...ids],
  );
  const byKey = new Map(stored.map((s) => [`${s.content_id}\0${s.text_hash}`, s.vector]));
  return rows.map((row, i) => byKey.get(`${row.id}\0${hashes[i]}`));
}

interface Stored {
  content_id: string;
  text_hash: string | null;
  vector: number[];
}

/** Working copies (what staff search) whose embedding is missing or older than their last change. */
const WORKING = {
  table: 'content_embedding',
  select: `select c."id", c."organization_id", c."project_id", c."name", c."description", c."content", c."updated_at"
             from "content" c left join "content_embedding" e on e."content_id" = c."id"
            where e."content_id" is null or e."source_updated_at" < c."updated_at"
            order by c."updated_at"`,
};

/** Published versions (what API keys search): the projection's text, `updated_at` being the publication time. */
const PUBLISHED = {
  table: 'published_content_embedding',
  select: `select p."id", p."organization_id", p."project_id", p."name", p."description", v."content"->'content' as "content", p."updated_at"
             from "published_content" p join "content_version" v on v."content_id" = p."id" and v."version" = p."version"
             left join "published_content_embedding" e on e."content_id" = p."id"
            where e."content_id" is null or e."source_updated_at" <> p."updated_at"
            order by p."updated_at"`,
};
