// Runs due schedules: any number of replicas poll; a row is claimed with FOR UPDATE SKIP LOCKED inside the
// transaction that runs its action, so each runs exactly once, and a replica that dies mid-way (kill -9) releases it.
import type { Logger } from '@cp/config';
import { PollingWorker } from '@cp/db';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Schedule } from './schedule.entity';
import { ScheduleService } from './schedule.service';

export interface ScheduleWorkerOptions {
  orm: MikroORM;
  logger?: Logger;
  /** Polling interval; a schedule must run within 5 s of `at`. */
  pollMs?: number;
  /** Claim loops per replica: each holds one schedule (and one connection) at a time. */
  concurrency?: number;
}

export class ScheduleWorker extends PollingWorker {
  private readonly service = new ScheduleService();

  constructor(private readonly options: ScheduleWorkerOptions) {
    // Due schedules are found by polling every second (each runs within 5 s of `at`); any replica may claim one.
    super({ name: 'schedules', what: 'schedule round', pollMs: options.pollMs ?? 1000, logger: options.logger });
  }

  protected async pass(): Promise<void> {
    // One plain read when nothing is due (almost every second): claim loops only start when there is work.
    const due = await this.options.orm.em
      .getConnection()
      .execute(`select 1 from "schedule" where "status" = 'pending' and "at" <= now() limit 1`, [], 'all');
    if (due.length === 0) return;
    // A stop (SIGTERM) ends each loop after the schedule in hand: a backlog would otherwise be worked off to its end
    // and outlast the shutdown timeout. What is left stays pending for the next process, claimed as usual.
    const loops = Array.from({ length: this.options.concurrency ?? 3 }, async () => {
      while (!this.stopping && (await this.runOne()));
    });
    await Promise.all(loops);
  }

  /** Claims the soonest due schedule no other transaction holds, runs it and records the outcome; false when none is due. */
  private runOne(): Promise<boolean> {
    return this.options.orm.em.fork().transactional(async (tx) => {
      const [row] = await tx
        .getConnection()
        .execute<{ id: string }[]>(
          `select "id" from "schedule" where "status" = 'pending' and "at" <= now() order by "at", "id" limit 1 for update skip locked`,
          [],
          'all',
          tx.getTransactionContext(),
        );
      if (!row) return false;
      const schedule = await tx.findOneOrFail(Schedule, { id: row.id });
      const unexpected = await this.service.run(tx, schedule);
      if (unexpected)
        this.options.logger?.error({ err: unexpected, scheduleId: schedule.id }, 'scheduled action failed');
      this.options.logger?.info(
        { scheduleId: schedule.id, status: schedule.status, action: schedule.action, resourceId: schedule.resourceId },
        'schedule ran',
      );
      return true;
    });
  }
}
