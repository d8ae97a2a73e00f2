// The one place a response is seen before it is written: stages add steps (size limit, cache fill, idempotency
// record), and every handler that answers with a whole body answers through `respond`, which runs them.
import type { Response } from 'express';
import type { ServerResponse } from 'node:http';

/** A response as its handler answers it; the steps may change its status, headers and body before it is written. */
export interface Ending {
  /** The body as bytes (undefined when there is none); a step may replace it or drop it. */
  body: Buffer | undefined;
  /** The body's size, without copying it. */
  size(): number;
}

export interface EndStep {
  /**
   * Runs when the handler answers, before the body is written. A promise holds the write until it settles.
   * `'answered'`: the step answered anew itself (through `respond`, say with an error envelope); that answer then
   * passes through the steps added before this one only, and the handler's is dropped.
   */
  end(ending: Ending): void | 'answered' | Promise<void>;
}

/**
 * How the body goes out: Express's `send` (Content-Length, a weak ETag when none is set, 304 for a current
 * `If-None-Match`, no body for HEAD), or `end`: as it is, with the headers the handler set.
 */
export type Finish = 'send' | 'end';

interface Seam {
  steps: EndStep[];
  /** While a step runs, the index of the last step an answer made anew passes through. */
  from?: number;
  /**
   * The answer went out through the steps: a run held by a step's promise ends there (the step answered anew
   * meanwhile), and a response that finishes without it skipped them.
   */
  written?: boolean;
}

const seams = new WeakMap<ServerResponse, Seam>();

/**
 * Adds a step to the response's seam. Steps run in the reverse of the order they were added, so a stage's step sees
 * the response as the stages after it left it: a size limit added after a cache's step refuses an oversized body
 * before the cache would keep it, and an idempotency record added first stores what the client receives.
 */
export function addEndStep(res: ServerResponse, step: EndStep): void {
  let seam = seams.get(res);
  if (!seam) {
    const added: Seam = (seam = { steps: [] });
    seams.set(res, added);
    // A handler that ends the response itself skips the steps: an idempotent write's answer would not be kept.
    res.once('finish', () => {
      if (!added.written)
        process.emitWarning(`${res.req?.method} ${res.req?.url} ended without respond(): its steps did not run`, {
          code: 'CP_RESPONSE_SEAM',
        });
    });
  }
  seam.steps.push(step);
}

/**
 * Answers with a whole body (undefined: none) through the response's steps, then writes it. Every handler behind a
 * stage that adds steps answers here; a response ended otherwise skips them.
 */
export function respond(res: ServerResponse, body?: string | Buffer, finish: Finish = 'send'): void {
  const seam = seams.get(res);
  if (!seam || seam.written) return write(res, body, finish);
  let bytes: Buffer | undefined;
  let changed = false;
  const ending: Ending = {
    get body() {
      if (changed) return bytes;
      return typeof body === 'string' ? (bytes ??= Buffer.from(body)) : body;
    },
    set body(value) {
      bytes = value;
      changed = true;
    },
    size: () =>
      changed ? (bytes?.length ?? 0) : typeof body === 'string' ? Buffer.byteLength(body) : (body?.length ?? 0),
  };
  const run = (at: number): void => {
    for (; at >= 0; at--) {
      const before = at - 1;
      seam.from = before;
      const outcome = seam.steps[at].end(ending);
      if (outcome === 'answered') return;
      // A step that fails still lets the response go out (the steps before it run, then the write); should even that
      // throw, the connection is closed rather than left hanging.
      if (outcome instanceof Promise) {
        const rest = () => void (seam.written || run(before));
        return void outcome.then(rest, rest).catch(() => res.destroy());
      }
    }
    seam.written = true;
    seam.from = undefined;
    write(res, changed ? bytes : body, finish);
  };
  // An answer made anew by a step starts below that step; any other starts at the last step added.
  run(seam.from ?? seam.steps.length - 1);
}

/** Express's `send` where the response has one (Node's own, outside Express, ends it as it is). */
function write(res: ServerResponse, body: string | Buffer | undefined, finish: Finish): void {
  if (body === undefined) res.end();
  else if (finish === 'send' && 'send' in res) (res as Response).send(body);
  else res.end(body);
}
