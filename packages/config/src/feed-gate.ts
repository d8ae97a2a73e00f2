// Whether a replica's in-process cache may answer: not from a broker announcement until its feed has applied it.
/**
 * A cache dropped by events (the published-read cache; FeedCache, which the principal and project-existence caches
 * use) holds answers that an event committed on another replica may have made stale. The broker's announcement of
 * that event reaches this replica before its feed has read the event, so from `announced(position)` until the applied
 * position reaches it the gate is not `current`: the cache reads the database and stores nothing
 * (docs/architecture/read-cache.md).
 */
export class FeedGate {
  private announcedPosition = 0n;
  private appliedPosition: () => bigint;

  /** Without `appliedPosition`, whatever was announced counts as applied until a host calls `follow`. */
  constructor(appliedPosition?: () => bigint) {
    this.appliedPosition = appliedPosition ?? (() => this.announcedPosition);
  }

  /** Ties the gate to the feed that applies this replica's events (EventFeed.position). */
  follow(appliedPosition: () => bigint): void {
    this.appliedPosition = appliedPosition;
  }

  /** The broker announced events up to `position`; announcements may arrive out of order, the highest counts. */
  announced(position: bigint): void {
    if (position > this.announcedPosition) this.announcedPosition = position;
  }

  /** False while this replica has been told of events it has not applied yet. */
  get current(): boolean {
    return this.announcedPosition <= this.appliedPosition();
  }
}
