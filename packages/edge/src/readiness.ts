// Readiness (`GET /ready`): 503 while starting, while draining for shutdown, or while the database does not answer.
// An event broker or rate-limit Redis that is down makes it `degraded` at 200: the replica still serves correct answers
// (docs/operating/README.md).
import type { Request, Response } from 'express';

export type ReadinessState = 'starting' | 'ready' | 'draining';

export class Readiness {
  state: ReadinessState = 'starting';

  ready(): void {
    this.state = 'ready';
  }

  draining(): void {
    this.state = 'draining';
  }

  /**
   * `/health` stays liveness; `/ready` tells a load balancer whether to send traffic here. `optional`: other
   * backing services' connections by name (`broker`, `redis`), each true while up. While one is down the replica still
   * answers correctly (without the event broker, replicas learn of other replicas' writes by polling, within about 2 s
   * instead of at once; without the rate limits' Redis, per-process memory counters count), so it keeps its traffic and
   * says `degraded` with `<name>: "down"` at 200 — taking every replica out for such an outage would turn a slower
   * cache or looser limits into a full outage. An entry may name its own state instead of `down` (a string): the
   * database that answers but refuses writes for lack of space is `database: "full"`, reads still served.
   */
  handler(ping: () => Promise<boolean>, optional: Record<string, () => boolean | string> = {}) {
    return async (_req: Request, res: Response) => {
      res.setHeader('Cache-Control', 'no-store');
      if (this.state !== 'ready') {
        res.status(503).json({ status: this.state });
        return;
      }
      const ok = await ping();
      if (!ok) return void res.status(503).json({ status: 'degraded' });
      const states = Object.entries(optional).map(([name, state]) => [name, state()] as const);
      const down = states.filter(([, state]) => state !== true).map(([name, state]) => [name, state || 'down']);
      if (down.length === 0) return void res.status(200).json({ status: 'ready' });
      res.status(200).json({ status: 'degraded', ...Object.fromEntries(down) });
    };
  }
}
