// Readiness (`GET /ready`): 503 while starting, while draining for shutdown, or while the database does not answer.
// An event broker that is down makes it `degraded` at 200: the replica still serves correct answers (docs/operating/README.md).
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
   * `/health` stays liveness (D10); `/ready` tells a load balancer whether to send traffic here. `brokerUp`: the
   * event broker's connection; while it is down, replicas learn of other replicas' writes by polling (within about
   * 2 s instead of at once), so the replica keeps its traffic and says `degraded` with `broker: "down"` at 200 —
   * taking every replica out for a broker outage would turn a slower cache into a full outage.
   */
  handler(ping: () => Promise<boolean>, brokerUp: () => boolean = () => true) {
    return async (_req: Request, res: Response) => {
      res.setHeader('Cache-Control', 'no-store');
      if (this.state !== 'ready') {
        res.status(503).json({ status: this.state });
        return;
      }
      const ok = await ping();
      if (!ok) return void res.status(503).json({ status: 'degraded' });
      res.status(200).json(brokerUp() ? { status: 'ready' } : { status: 'degraded', broker: 'down' });
    };
  }
}
