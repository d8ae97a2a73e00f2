// Delivers webhooks from the database, so any number of replicas share the work and a crash loses nothing.
import type { Logger } from '@cp/config';
import { counter } from '@cp/metrics';
import { PollingWorker } from '@cp/db';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { SecretBox } from './secret-box';
import { SIGNATURE_HEADER, sign } from './signature';
import { pinnedPost } from './pinned-post';
import { assertDeliverable } from './target-guard';

export interface WebhookWorkerOptions {
  orm: MikroORM;
  box: SecretBox;
  allowPrivateTargets: boolean;
  /** First retry delay; each retry doubles it, capped at an hour, for 24 hours. */
  retryBaseMs: number;
  /** How long one attempt may take (10 s by default); its claim is leased for three times that. */
  attemptTimeoutMs?: number;
  logger?: Logger;
  pollMs?: number;
}

const GIVE_UP_AFTER_MS = 24 * 3600 * 1000;
const MAX_BACKOFF_MS = 3600 * 1000;
/** Per attempt by default; a slow receiver only holds its own queue this long. */
const TIMEOUT_MS = 10_000;
/**
 * How long a stop (SIGTERM) lets attempts in flight finish before it interrupts them: an attempt may take `TIMEOUT_MS`,
 * as long as a whole shutdown may (SHUTDOWN_TIMEOUT_MS), and a hanging receiver must not make the process overrun it.
 * The interrupted attempts then get as long again to record that they are due again.
 */
const STOP_WAIT_MS = 1000;
/** Attempts in flight per process, all targets together: bounds sockets when many receivers hang at once. */
const MAX_IN_FLIGHT = 32;
/**
 * A `sending` row is leased for this many attempt timeouts; past it (its worker died, or stopped before it could write
 * the outcome) the delivery is due again.
 */
const LEASE_ATTEMPTS = 3;
// Only one replica at a time turns new events into deliveries.
export const SCAN_LOCK = 7_240_115;

// A round is one round trip (it runs on every announcement): the scan and the claim are sent as one simple query (no
// parameters: every value inlined is a constant or an integer of this module), which PostgreSQL runs as one implicit
// transaction, each statement with its own READ COMMITTED snapshot, committed together (an error rolls back both).
//
// The scan takes the try-lock itself, and a replica that did not get it neither locks the cursor row nor reads
// events. Its snapshot was taken before the lock was granted, so it may predate the last holder's commit; still
// nothing is skipped or doubled: `for update` returns the cursor row's newest committed version (READ COMMITTED
// follows a concurrent update), an event the older snapshot misses has a higher position than every event it sees
// (positions are assigned in commit order, see EventDispatcher), and the cursor only moves to the highest position
// seen; the unique key with `on conflict`, checked against committed rows rather than the snapshot, keeps one
// delivery per (webhook, event) whatever happens. The cursor row is rewritten only when there were new events (an idle
// round leaves no dead row version behind).
//
// The scan: events past the cursor become deliveries for the project's matching active webhooks.
const SCAN = `with turn as (select pg_try_advisory_xact_lock(${SCAN_LOCK}) as locked),
      cursor as (select c."position" from "webhook_cursor" c, turn t where t.locked and c."id" = 1 for update of c),
      fresh as (select e.* from "event" e where e."position" > (select "position" from cursor) order by e."position" limit 1000),
      queued as (
        insert into "webhook_delivery" ("id", "webhook_id", "event_id", "event_type", "status", "attempts", "next_attempt_at", "created_at")
        select gen_random_uuid()::text, w."id", f."id", f."type", 'pending', 0, now(), now()
          from fresh f join "webhook" w on w."project_id" = f."project_id" and w."organization_id" = f."organization_id"
         where w."active" and (jsonb_array_length(w."event_types") = 0 or jsonb_exists(w."event_types", f."type"))
        on conflict ("webhook_id", "event_id") do nothing)
update "webhook_cursor" set "position" = (select max("position") from fresh) where "id" = 1 and exists (select from fresh)`;

/**
 * Claims the oldest due delivery of up to `limit` active webhooks that have no attempt in flight (here or on another
 * replica; a `sending` row past its lease no longer counts), locked so replicas never claim the same row. Its own
 * snapshot, taken after the scan ran, sees the deliveries the scan just inserted; `now()` is the round's start, the
 * scan's deliveries are due at once.
 */
const claimStatement = (limit: number, leaseSeconds: number) => `with heads as (
     select distinct on (d."webhook_id") d."id", d."next_attempt_at"
       from "webhook_delivery" d join "webhook" w on w."id" = d."webhook_id"
      where d."status" in ('pending', 'retrying', 'sending') and d."next_attempt_at" <= now() and w."active"
        and not exists (select 1 from "webhook_delivery" s
                         where s."webhook_id" = d."webhook_id" and s."status" = 'sending' and s."next_attempt_at" > now())
      order by d."webhook_id", d."next_attempt_at", d."id"),
   picked as (
     select d."id" from "webhook_delivery" d join heads h on h."id" = d."id"
      order by h."next_attempt_at" limit ${limit} for update of d skip locked)
   update "webhook_delivery" d set "status" = 'sending', "next_attempt_at" = now() + interval '${leaseSeconds} seconds'
     from "webhook" w
    where d."id" in (select "id" from picked) and w."id" = d."webhook_id"
    returning d."id", d."webhook_id", d."event_id", d."event_type", d."attempts", d."created_at", w."url", w."secret_ciphertext"`;

interface DueDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  created_at: Date;
  url: string;
  secret_ciphertext: string;
}

const attemptFailures = counter(
  'cp_webhook_attempt_failures_total',
  'Webhook delivery attempts that failed (error or non-2xx).',
  ['outcome'],
);

/**
 * Each webhook is its own queue: at most one attempt in flight per target, so a slow or hanging receiver delays only
 * its own deliveries. Rounds (scan the event log, claim due deliveries: one round trip) run every poll, on every
 * announcement and whenever an attempt ends; attempts are not awaited by the round, so new events keep flowing while
 * others are in flight.
 */
export class WebhookWorker extends PollingWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** Aborted by `stop()` once its wait is over: cuts the attempts still in flight. */
  private readonly interrupt = new AbortController();
  private readonly timeoutMs: number;
  /** Whole seconds (it is inlined into the claim), at least one. */
  private readonly leaseSeconds: number;

  constructor(private readonly options: WebhookWorkerOptions) {
    // Deliveries are found by scanning numbered events: new positions are the signal.
    const pollMs = options.pollMs ?? 1000;
    super({ name: 'webhooks', what: 'webhook delivery round', pollMs, kickOn: ['announce'], logger: options.logger });
    this.timeoutMs = options.attemptTimeoutMs ?? TIMEOUT_MS;
    this.leaseSeconds = Math.max(1, Math.ceil((this.timeoutMs * LEASE_ATTEMPTS) / 1000));
  }

  /**
   * Lets the attempts in flight finish (and record their outcome) for a moment, then interrupts the rest: those are
   * due again at once, for another replica or the next start (at least once: the receiver may see one twice); claims
   * nothing new.
   *
   * Both waits are bounded. Recording an outcome is a database write, which could wait far longer than a shutdown may
   * take: behind a row lock another session holds (up to the statement timeout, 15 s by default), for a pooled
   * connection (up to 10 s). Awaiting it made SIGTERM overrun SHUTDOWN_TIMEOUT_MS and end in the deadline's exit 1, 10
   * to 20 s after the signal. So a write made while stopping skips a locked row (see `deliver`), and an attempt still
   * busy when the second wait ends is left to its lease: its row stays `sending` and is due again once the lease runs
   * out, so nothing is lost.
   */
  override async stop(): Promise<void> {
    await super.stop();
    const settled = Promise.all(this.inFlight);
    if (!(await within(settled, STOP_WAIT_MS))) {
      this.interrupt.abort();
      if (!(await within(settled, STOP_WAIT_MS)))
        this.options.logger?.warn(
          { attempts: this.inFlight.size },
          'webhook attempts did not record their outcome before the stop; they are due again when their lease ends',
        );
    }
  }

  protected async pass(): Promise<void> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    const claiming = !this.stopping && room > 0;
    const results = await this.options.orm.em
      .getConnection()
      .getKnex()
      .raw(claiming ? `${SCAN};\n${claimStatement(room, this.leaseSeconds)}` : SCAN);
    if (!claiming) return;
    const [, claimed] = results as { rows: DueDelivery[] }[];
    for (const delivery of claimed!.rows) {
      const attempt: Promise<void> = this.deliver(delivery)
        .catch((err) =>
          this.options.logger?.warn({ err, deliveryId: delivery.id }, 'webhook delivery failed to record'),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          this.kick();
        });
      this.inFlight.add(attempt);
    }
  }

  private async deliver(delivery: DueDelivery): Promise<void> {
    const conn = this.options.orm.em.fork().getConnection();
    const [event] = await conn.execute('select * from "event" where "id" = ?', [delivery.event_id]);
    const body = JSON.stringify({
      id: delivery.id,
      event: {
        id: event.id,
        type: event.type,
        resourceType: event.resource_type,
        resourceId: event.resource_id,
        projectId: event.project_id,
        version: event.version,
        occurredAt: new Date(event.occurred_at).toISOString(),
        actorId: event.actor_id,
      },
    });
    const started = Date.now();
    let code: number | null = null;
    let error: string | null = null;
    try {
      const target = await assertDeliverable(delivery.url, this.options.allowPrivateTargets);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'content-platform-webhooks/1',
        [SIGNATURE_HEADER]: sign(this.options.box.open(delivery.secret_ciphertext), body),
        'x-cp-event': delivery.event_type,
        'x-cp-delivery': delivery.id,
      };
      code = await pinnedPost(target, headers, body, this.timeoutMs, this.interrupt.signal);
      if (code < 200 || code > 299) error = `HTTP ${code}`;
    } catch (e) {
      error = (e as Error).message;
    }
    const duration = Date.now() - started;
    const attempts = delivery.attempts + 1;
    // Once the worker is stopping, an outcome write does not wait for a row lock another session holds: the shutdown
    // would wait for it (closing the pool waits for every query) past its deadline. Skipped, the row stays `sending`
    // and its lease makes the delivery due again.
    const row = this.stopping
      ? `"id" = (select "id" from "webhook_delivery" where "id" = ? for update skip locked)`
      : `"id" = ?`;
    if (!error) {
      await conn.execute(
        `update "webhook_delivery" set "status" = 'delivered', "attempts" = ?, "response_code" = ?, "duration_ms" = ?, "error" = null, "delivered_at" = now() where ${row}`,
        [attempts, code, duration, delivery.id],
      );
      return;
    }
    if (code === null && this.interrupt.signal.aborted) {
      // Cut by the stop, not refused by the receiver: no attempt is counted, and the delivery is due again now.
      await conn.execute(
        `update "webhook_delivery" set "status" = 'retrying', "next_attempt_at" = now() where ${row} and "status" = 'sending'`,
        [delivery.id],
      );
      return;
    }
    attemptFailures.inc({ outcome: 'failed' });
    const backoff = Math.min(this.options.retryBaseMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
    const next = new Date(Date.now() + backoff);
    const giveUp = next.getTime() - new Date(delivery.created_at).getTime() > GIVE_UP_AFTER_MS;
    await conn.execute(
      // Conditional: a delivery cancelled meanwhile (its webhook was deactivated) stays cancelled.
      `update "webhook_delivery" set "status" = ?, "attempts" = ?, "response_code" = ?, "duration_ms" = ?, "error" = ?, "next_attempt_at" = ? where ${row} and "status" = 'sending'`,
      [giveUp ? 'failed' : 'retrying', attempts, code, duration, error.slice(0, 500), next, delivery.id],
    );
  }
}

/** True when `work` settled within `ms`; it is not cancelled otherwise. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
