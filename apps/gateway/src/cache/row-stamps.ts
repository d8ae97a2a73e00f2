// Version stamps for the admin reads, of one content row or of a whole project's content: every stamp asked for in one
// turn of the event loop is read by one query, sent after the last of them was asked.
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * `xmin` is the transaction that wrote the row version the database sees now, so any committed change of the row
 * (through the ORM or any SQL) gives another stamp. The revision beside it keeps two stamps apart even across
 * transaction-id wraparound, which an entry's TTL makes moot anyway. A named statement: PostgreSQL parses and plans
 * it once per connection.
 */
const ENTRY_STAMPS = {
  name: 'cp_admin_read_stamps',
  sql: `select id, organization_id, project_id, xmin::text || '/' || revision as stamp from "content" where id = any(?::varchar[])`,
};

/**
 * A project's stamp, for its lists: every change made through the platform writes its event in the change's own
 * transaction, and the dispatcher numbers committed events from one sequence. So a commit that a list read earlier
 * could not see shows up, once committed, either unnumbered (the second part) or numbered above the first part: the
 * stamp never comes back to a value it had before that commit. Two index lookups (`event_project_id_position_index`,
 * `event_unnumbered_record_seq_index`) per project, whatever its size. The key is `organization/project`.
 */
const PROJECT_STAMPS = {
  name: 'cp_admin_list_stamps',
  sql: `select k.id, k.organization_id, k.project_id,
      coalesce((select max(e.position) from "event" e
                 where e.project_id = k.project_id and e.organization_id = k.organization_id), 0)::text || '/' ||
      coalesce((select max(e.record_seq) from "event" e
                 where e.position is null and e.project_id = k.project_id and e.organization_id = k.organization_id), 0)::text
      as stamp
    from (select id, split_part(id, '/', 1) as organization_id, split_part(id, '/', 2) as project_id
            from unnest(?::varchar[]) as id) k`,
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

  /** Stamps of content rows (`of(organization, project, id)`). */
  static entries(em: EntityManager): RowStamps {
    return new RowStamps(em, ENTRY_STAMPS);
  }

  /** Stamps of projects' content as their lists show it (`of(organization, project)`). */
  static projects(em: EntityManager): RowStamps {
    return new RowStamps(em, PROJECT_STAMPS);
  }

  private constructor(
    private readonly em: EntityManager,
    private readonly statement: { name: string; sql: string },
  ) {}

  /** The stamp; undefined when the row is not there, or not in that organization and project. */
  of(organizationId: string, projectId: string, id = `${organizationId}/${projectId}`): Promise<string | undefined> {
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
        .raw<{ rows: Row[] }>(this.statement.sql, [[...asked.keys()]])
        .options({ name: this.statement.name });
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
