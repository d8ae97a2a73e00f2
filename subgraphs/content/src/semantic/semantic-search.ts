// Ranks a project's entries by meaning: cosine similarity between the query's embedding and each entry's, in memory.
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Embedder } from './embedder';

/** Below this cosine similarity an entry is not considered a match (MiniLM: unrelated texts score about 0–0.15). */
export const MIN_SIMILARITY = 0.25;

/** Embeddings of working copies (staff) and of published versions (API keys), kept apart. */
type EmbeddingTable = 'content_embedding' | 'published_content_embedding';

interface ProjectVectors {
  stamp: string;
  ids: string[];
  vectors: Float32Array[];
}

/**
 * PostgreSQL 15 here has no pgvector and cosine over `real[]` in SQL is slow, so each process keeps the project's
 * vectors in memory (384 floats an entry: ~1.5 MB per 1,000) and reloads them when the table changed for that project.
 */
export class SemanticSearch {
  private readonly cache = new Map<string, ProjectVectors>();

  constructor(private readonly embedder: Embedder) {}

  /** With `published` (API keys) the embeddings of published versions, never of working copies. */
  async rank(
    em: EntityManager,
    scope: ProjectScope,
    query: string,
    published = false,
  ): Promise<{ id: string; score: number }[]> {
    const [vectors, [q]] = await Promise.all([
      this.vectors(em, scope, published ? 'published_content_embedding' : 'content_embedding'),
      this.embedder.embed([query]),
    ]);
    const scored = vectors.ids.map((id, i) => ({ id, score: dot(q, vectors.vectors[i]) }));
    // Ties broken by id: the order is total, so a (score, id) cursor resumes exactly where a page ended.
    return scored
      .filter((s) => s.score >= MIN_SIMILARITY)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private async vectors(em: EntityManager, scope: ProjectScope, table: EmbeddingTable): Promise<ProjectVectors> {
    const conn = em.getConnection();
    const ctx = em.getTransactionContext();
    const args = [scope.organizationId, scope.projectId];
    const [{ stamp }] = await conn.execute<{ stamp: string }[]>(
      `select count(*) || ':' || coalesce(max("source_updated_at")::text, '') as stamp from "${table}" where "organization_id" = ? and "project_id" = ?`,
      args,
      'all',
      ctx,
    );
    const key = `${table}/${scope.organizationId}/${scope.projectId}`;
    const cached = this.cache.get(key);
    if (cached?.stamp === stamp) return cached;
    const rows = await conn.execute<{ content_id: string; vector: number[] }[]>(
      `select "content_id", "vector" from "${table}" where "organization_id" = ? and "project_id" = ?`,
      args,
      'all',
      ctx,
    );
    const loaded = {
      stamp,
      ids: rows.map((r) => r.content_id),
      vectors: rows.map((r) => Float32Array.from(r.vector.map(Number))),
    };
    this.cache.set(key, loaded);
    return loaded;
  }
}

/** The model normalises its vectors, so the dot product is the cosine similarity. */
function dot(a: number[], b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
