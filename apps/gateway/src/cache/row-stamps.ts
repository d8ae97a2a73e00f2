// Content rows' version stamps for the admin entry reads: every stamp asked for in one turn of the event loop is read
// by one query, sent after the last of them was asked.
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * `xmin` is the transaction that wrote the row version the database sees now, so any committed change of the row
 * (through the ORM or any SQL) gives another stamp. The revision beside it keeps two stamps apart even across
 * transaction-id wraparound, which an entry's TTL makes moot anyway. A named statement: PostgreSQL parses and plans
 * it once per connection.
 */
const STAMPS = {
  name: 'cp_admin_read_stamps',
  sql: `select id, organization_id, project_id, xmin::text || '/' || revision as stamp from "content" where id = any(?::varchar[])`,
};

interface Row {
  id: string;
  organization_id: string;
  project_id: string;
  stamp: string;
}

interface Asked {
  organizationId: string;
  projectId: string;
  resolve(stamp: string | undefined): void;
  reject(err: unknown): void;
}

/**
 * Under load many reads wait for a stamp at once (an editor's screen, or a team's, asks again and again): one query a
 * turn instead of one each, and one pooled connection instead of as many as there are readers. Fresh for each
 * caller: a caller joins only a query not yet sent, so the query's snapshot is taken after the caller's request
 * arrived, and it sees every commit that was answered before.
 */
export class RowStamps {
  private asked = new Map<string, Asked[]>();
  private scheduled = false;

  constructor(private readonly em: EntityManager) {}

  /** The row's stamp; undefined when it is not there, or not in that organization and project. */
  of(organizationId: string, projectId: string, id: string): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.asked.get(id);
      const asked = { organizationId, projectId, resolve, reject };
      if (waiting) waiting.push(asked);
      else this.asked.set(id, [asked]);
      if (!this.scheduled) {
        this.scheduled = true;
        // After this turn's I/O callbacks: the requests that arrived together ask together.
        setImmediate(() => void this.send());
      }
    });
  }

  private async send(): Promise<void> {
    const asked = this.asked;
    this.asked = new Map();
    this.scheduled = false;
    try {
      const { rows } = await this.em
        .getKnex()
        .raw<{ rows: Row[] }>(STAMPS.sql, [[...asked.keys()]])
        .options({ name: STAMPS.name });
      const found = new Map(rows.map((row) => [row.id, row]));
      for (const [id, waiting] of asked) {
        const row = found.get(id);
        for (const a of waiting)
          a.resolve(
            row && row.organization_id === a.organizationId && row.project_id === a.projectId ? row.stamp : undefined,
          );
      }
    } catch (err) {
      for (const waiting of asked.values()) for (const a of waiting) a.reject(err);
    }
  }
}
