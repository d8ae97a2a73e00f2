// `stages` against Express itself: a chain run as one layer answers every request as the same handlers mounted one by one.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stages } from './stages';

const runs = { seed: Number(process.env.FC_SEED ?? 20261129), numRuns: Number(process.env.FC_RUNS ?? 200) };

/** What a stage may do: go on (in every way `next` takes), fail (in every way Express catches), or answer. */
const BEHAVIOURS = {
  next: (next: NextFunction) => next(),
  route: (next: NextFunction) => next('route'),
  router: (next: NextFunction) => next('router'),
  error: (next: NextFunction) => next(new Error('passed')),
  throw: () => {
    throw new Error('thrown');
  },
  reject: () => Promise.reject(new Error('rejected')),
  rejectEmpty: () => Promise.reject(undefined),
  thenable: () => ({ then: (_ok: unknown, fail: (e: Error) => void) => fail(new Error('thenable')) }),
  later: (next: NextFunction) => Promise.resolve().then(() => next()),
  answer: (_next: NextFunction, res: Response, at: number) => void res.send(`answered by ${at}`),
} as const;
type Behaviour = keyof typeof BEHAVIOURS;

const MAX_STAGES = 5;
/** The plan the next request runs: stage `at` behaves as `plan[at]`, and past the plan's end goes on. */
let plan: Behaviour[] = [];

/** Stages that note that they ran, then behave as the plan says; the same ones for both apps. */
const HANDLERS: RequestHandler[] = Array.from(
  { length: MAX_STAGES },
  (_, at) => (_req: Request, res: Response, next: NextFunction) => {
    if (at >= plan.length) return next();
    (res.locals.trail ??= []).push(at);
    return BEHAVIOURS[plan[at]](next, res, at) as unknown as void;
  },
);

describe('stages', () => {
  const servers: Server[] = [];
  let urls: { one: string; each: string };

  async function serve(mount: (app: express.Express) => void): Promise<string> {
    const app = express();
    mount(app);
    app.use((_req: Request, res: Response) => void res.send(`past the stages: ${res.locals.trail}`));
    app.use((err: Error, _req: Request, res: Response, _next: NextFunction) =>
      res.status(500).send(`error ${err.message}: ${res.locals.trail}`),
    );
    const server = createServer(app);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    const one = await serve((app) => app.use(stages(...HANDLERS)));
    const each = await serve((app) => app.use(...HANDLERS));
    urls = { one, each };
  });
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  it('answers as the handlers mounted one by one do, whatever each stage does', async () => {
    const behaviours = Object.keys(BEHAVIOURS) as Behaviour[];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...behaviours), { minLength: 1, maxLength: MAX_STAGES }),
        async (drawn) => {
          plan = drawn;
          const answer = async (url: string) => {
            const res = await fetch(`${url}/x`);
            return `${res.status} ${await res.text()}`;
          };
          expect(await answer(urls.one)).toBe(await answer(urls.each));
        },
      ),
      runs,
    );
  });
});
