// The response seam on a real Express server: bodies arrive as sent through any stack of steps, steps run last-added
// first, an answer made anew passes only the steps added before it, and a step's promise holds the write.
import express, { type Request, type Response } from 'express';
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEndStep, type EndStep } from './response-seam';

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
  it('delivers every body as sent, and shows each keeping step the whole body, whatever the steps and chunks', async () => {
    const chunk = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.uint8Array({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunk, { minLength: 1, maxLength: 4 }),
        fc.array(fc.boolean(), { maxLength: 3 }),
        async (chunks, keeping) => {
          const sent = Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : Buffer.from(c))));
          const seen: Buffer[] = [];
          const answer = await call((_req, res) => {
            for (const keeps of keeping)
              addEndStep(res, {
                keepsStreamed: keeps,
                end: (ending) => {
                  if (keeps) seen.push(Buffer.concat([...ending.written, ...(ending.body ? [ending.body] : [])]));
                },
              });
            res.setHeader('content-type', 'application/octet-stream');
            for (const c of chunks.slice(0, -1)) res.write(c);
            res.end(chunks.at(-1));
          });
          expect(answer.body.equals(sent)).toBe(true);
          expect(seen).toHaveLength(keeping.filter(Boolean).length);
          for (const body of seen) expect(body.equals(sent)).toBe(true);
        },
      ),
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
          res.status(400).send('refused');
          return 'answered';
        }),
      );
      addEndStep(res, step('last'));
      res.send('original');
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
      res.send('a body');
    });
    expect(answer.status).toBe(304);
    expect(answer.body.length).toBe(0);
    expect(stored).toBe('(none)');

    // A step whose promise fails still lets the response end, through the steps before it.
    const seen: string[] = [];
    const failed = await call((_req, res) => {
      addEndStep(res, { end: (ending) => void seen.push(ending.body?.toString() ?? '') });
      addEndStep(res, { end: () => Promise.reject(new Error('storage failed')) });
      res.send('still sent');
    });
    expect(failed.body.toString()).toBe('still sent');
    expect(seen).toEqual(['still sent']);

    const changed = await call((_req, res) => {
      addEndStep(res, { end: (ending) => void (ending.body = Buffer.from('changed')) });
      res.setHeader('content-type', 'text/plain');
      res.end('original');
    });
    expect(changed.body.toString()).toBe('changed');
  });
});
