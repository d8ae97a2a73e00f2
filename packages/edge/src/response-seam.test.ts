// The response seam on a real Express server: bodies arrive as sent through any stack of steps, steps run last-added
// first, an answer made anew passes only the steps added before it, and a step's promise holds the write.
import express, { type Request, type Response } from 'express';
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEndStep, respond, type EndStep } from './response-seam';

const runs = { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: Number(process.env.FC_RUNS ?? 100) };

type Handler = (req: Request, res: Response) => void;
let handler: Handler = () => undefined;
let url = '';
let close = () => undefined as void;

beforeAll(async () => {
  const app = express();
  app.get('/', (req, res) => handler(req, res));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  close = () => void server.close();
});
afterAll(() => close());

async function call(answer: Handler): Promise<{ status: number; body: Buffer; headers: Headers }> {
  handler = answer;
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

describe('response seam', () => {
  it('delivers every body as sent, and shows each step the whole body, whatever the steps and the body', async () => {
    const body = fc.oneof(fc.string({ unit: 'binary', maxLength: 120 }), fc.uint8Array({ maxLength: 120 }));
    await fc.assert(
      fc.asyncProperty(body, fc.nat({ max: 3 }), async (sent, steps) => {
        const bytes = Buffer.from(sent);
        const seen: Buffer[] = [];
        const answer = await call((_req, res) => {
          for (let i = 0; i < steps; i++) addEndStep(res, { end: (ending) => void seen.push(ending.body!) });
          res.setHeader('content-type', 'application/octet-stream');
          respond(res, typeof sent === 'string' ? sent : bytes);
        });
        expect(answer.body.equals(bytes)).toBe(true);
        expect(seen).toHaveLength(steps);
        for (const body of seen) expect(body.equals(bytes)).toBe(true);
      }),
      runs,
    );
  });

  it('runs the steps last-added first; an answer made anew passes only the steps added before its own', async () => {
    const order: string[] = [];
    const step = (name: string, then?: EndStep['end']): EndStep => ({
      end: (ending) => (order.push(`${name}:${ending.body?.toString()}`), then?.(ending)),
    });
    const answer = await call((_req, res) => {
      addEndStep(res, step('first'));
      addEndStep(
        res,
        step('refuses', () => {
          respond(res.status(400), 'refused');
          return 'answered';
        }),
      );
      addEndStep(res, step('last'));
      // Steps are kept beside the response: its own `end` stays Node's.
      expect(Object.hasOwn(res, 'end') || Object.hasOwn(res, 'write')).toBe(false);
      respond(res, 'original');
    });
    expect(order).toEqual(['last:original', 'refuses:original', 'first:refused']);
    expect(answer.status).toBe(400);
    expect(answer.body.toString()).toBe('refused');
  });

  it('writes a changed body or none at all, and holds the write until a step’s promise settles', async () => {
    let stored = '';
    const answer = await call((_req, res) => {
      addEndStep(res, {
        end: async (ending) => {
          await new Promise((r) => setTimeout(r, 20));
          stored = ending.body?.toString() ?? '(none)';
        },
      });
      addEndStep(res, {
        end: (ending) => {
          res.status(304);
          ending.body = undefined;
        },
      });
      respond(res, 'a body');
    });
    expect(answer.status).toBe(304);
    expect(answer.body.length).toBe(0);
    expect(stored).toBe('(none)');

    // A step whose promise fails still lets the response end, through the steps before it.
    const seen: string[] = [];
    const failed = await call((_req, res) => {
      addEndStep(res, { end: (ending) => void seen.push(ending.body?.toString() ?? '') });
      addEndStep(res, { end: () => Promise.reject(new Error('storage failed')) });
      respond(res, 'still sent');
    });
    expect(failed.body.toString()).toBe('still sent');
    expect(seen).toEqual(['still sent']);

    const changed = await call((_req, res) => {
      addEndStep(res, { end: (ending) => void (ending.body = Buffer.from('changed')) });
      res.setHeader('content-type', 'text/plain');
      respond(res, 'original', 'end');
    });
    expect(changed.body.toString()).toBe('changed');
  });
});

describe('a step that answers anew after a promise', () => {
  it('sends its answer once, through the steps added before it, and leaves the connection whole', async () => {
    const order: string[] = [];
    let destroyed = false;
    const answer = await call((_req, res) => {
      res.destroy = (() => ((destroyed = true), res)) as typeof res.destroy;
      addEndStep(res, { end: (ending) => void order.push(`first:${ending.body?.toString()}`) });
      addEndStep(res, {
        end: async () => {
          await new Promise((r) => setTimeout(r, 10));
          order.push('busy');
          respond(res.status(503), 'busy');
        },
      });
      respond(res, 'original');
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(answer.status).toBe(503);
    expect(answer.body.toString()).toBe('busy');
    expect(order).toEqual(['busy', 'first:busy']);
    expect(destroyed).toBe(false);
  });
});

describe('a response ended without respond()', () => {
  it('is reported: its steps did not run', async () => {
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on('warning', listen);
    try {
      let ran = false;
      await call((_req, res) => {
        addEndStep(res, { end: () => void (ran = true) });
        res.end('bypassed');
      });
      await new Promise((r) => setTimeout(r, 20));
      expect(ran).toBe(false);
      expect(warnings.map((w) => (w as Error & { code?: string }).code)).toContain('CP_RESPONSE_SEAM');
    } finally {
      process.off('warning', listen);
    }
  });
});
