// Notices a database that refuses statements for lack of disk, memory or connections, so `/ready` can say so.
import type { Logger } from '@cp/config';
import { exhaustionOf, type Exhaustion } from '@cp/errors';

type Callback = (err: Error | null, result?: unknown) => void;
interface QueryingClient {
  query(...args: unknown[]): unknown;
}

/** How long one refusal keeps the database reported exhausted: writes that keep failing keep it so. */
export const EXHAUSTED_REPORT_MS = 5000;

/**
 * Watches every statement of every pooled connection (knex's `afterCreate`). A statement refused for lack of space,
 * memory or connections (SQLSTATE class 53, or PGlite's "No space left on device") marks the database exhausted for
 * EXHAUSTED_REPORT_MS: nothing cheaper says whether the next write fits, and a success proves little (a page with
 * room left takes a row while the next one finds none), so it heals by itself once such refusals stop.
 */
export class ExhaustionWatch {
  private last: { kind: Exhaustion; at: number } | undefined;

  constructor(private readonly logger?: Logger) {}

  /** What the database ran out of, while it refused a statement for it within the last EXHAUSTED_REPORT_MS. */
  get state(): Exhaustion | undefined {
    return this.last && Date.now() - this.last.at < EXHAUSTED_REPORT_MS ? this.last.kind : undefined;
  }

  readonly afterCreate = <C extends QueryingClient>(connection: C, done: (err: Error | null, connection: C) => void) =>
    done(null, this.watch(connection));

  watch<C extends QueryingClient>(connection: C): C {
    // knex runs every statement as `query(config, callback)`.
    const query = connection.query.bind(connection);
    connection.query = (...args: unknown[]) => {
      const done = args.at(-1);
      if (typeof done === 'function')
        args[args.length - 1] = (err: Error | null, result: unknown) => {
          if (err) this.refused(err);
          (done as Callback)(err, result);
        };
      return query(...args);
    };
    return connection;
  }

  private refused(err: Error): void {
    const kind = exhaustionOf(err);
    if (!kind) return;
    if (!this.state) this.logger?.warn({ reason: err.message, kind }, 'the database refuses writes: out of ' + kind);
    this.last = { kind, at: Date.now() };
  }
}
