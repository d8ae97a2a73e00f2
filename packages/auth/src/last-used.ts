// Writes API keys' `lastUsed` off the request path: remembered per request, written in one batched update.
import type { EntityManager } from '@mikro-orm/postgresql';

const INTERVAL_MS = 60_000;
const FLUSH_MS = 10_000;

type Connection = ReturnType<EntityManager['getConnection']>;

/**
 * `lastUsed` is accurate to about a minute: a key is written at most once a minute per process, and all keys
 * used since the last flush are written together every few seconds (one statement), never while a request waits.
 */
export class LastUsedRecorder {
  private readonly pending = new Set<string>();
  /** keyId → when this process last wrote (or saw stored) its `lastUsed`. */
  private readonly written = new Map<string, number>();
  private connection: Connection | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  record(em: EntityManager, keyId: string, storedLastUsed?: Date | null): void {
    const now = Date.now();
    if (storedLastUsed) this.written.set(keyId, Math.max(this.written.get(keyId) ?? 0, storedLastUsed.getTime()));
    if (now - (this.written.get(keyId) ?? 0) < INTERVAL_MS) return;
    if (this.written.size > 10_000) this.written.clear();
    this.written.set(keyId, now);
    // The driver connection is the ORM's, shared by every fork: safe to keep for the timer.
    this.connection ??= em.getConnection();
    this.pending.add(keyId);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what is pending now (also called on shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    const ids = [...this.pending];
    this.pending.clear();
    if (ids.length === 0 || !this.connection) return;
    const at = new Date();
    this.flushing = this.connection
      .execute(
        `update "api_key" set "last_used" = ? where "id" in (${ids.map(() => '?').join(', ')}) and ("last_used" is null or "last_used" < ?)`,
        [at, ...ids, at],
      )
      .then(() => undefined)
      // Best effort: a failed write lets the next use try again.
      .catch(() => ids.forEach((id) => this.written.delete(id)))
      .finally(() => (this.flushing = undefined));
    await this.flushing;
  }
}
