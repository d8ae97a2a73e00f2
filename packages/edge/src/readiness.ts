// Readiness (`GET /ready`): 503 while starting, while draining for shutdown, or while the database does not answer.
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

  /** `/health` stays liveness (D10); `/ready` tells a load balancer whether to send traffic here. */
  handler(ping: () => Promise<boolean>) {
    return async (_req: Request, res: Response) => {
      res.setHeader('Cache-Control', 'no-store');
      if (this.state !== 'ready') {
        res.status(503).json({ status: this.state });
        return;
      }
      const ok = await ping();
      res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'degraded' });
    };
  }
}
