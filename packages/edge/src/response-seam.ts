// The one place a response is seen as it ends: stages add steps (size limit, cache fill, idempotency record) here,
// and only this module wraps a response's `write` and `end`.
import type { Response } from 'express';

/** A response as its handler ends it; the steps may change its status, headers and body before it is written. */
export interface Ending {
  /** The body `end` was given, as bytes (undefined when there was none); a step may replace it or drop it. */
  body: Buffer | undefined;
  /** Something was written before `end`: the body is not known whole, and the headers are sent. */
  readonly streamed: boolean;
  /** The bytes written before `end`, kept only when a step asked for them (`keepsStreamed`). */
  readonly written: readonly Buffer[];
  /** The size of `end`'s body, without copying it. */
  size(): number;
}

export interface EndStep {
  /**
   * Runs when the handler ends the response, before the body is written. A promise holds the write until it settles.
   * `'answered'`: the step answered anew itself (through `res`, say with an error envelope); that answer then passes
   * through the steps added before this one only, and the handler's is dropped.
   */
  end(ending: Ending): void | 'answered' | Promise<void>;
  /** Runs at the first `write` of a streamed body, while the headers can still change. */
  stream?(): void;
  /** Keep what is written before `end` (a stored answer needs a streamed body whole). */
  keepsStreamed?: boolean;
}

type End = (...args: unknown[]) => Response;
type Write = (...args: unknown[]) => boolean;

interface Seam {
  steps: EndStep[];
  written: Buffer[];
  streamed: boolean;
}

const seams = new WeakMap<Response, Seam>();

/**
 * Adds a step to the response's seam. Steps run in the reverse of the order they were added, so a stage's step sees
 * the response as the stages after it left it: a size limit added after a cache's step refuses an oversized body
 * before the cache would keep it, and an idempotency record added first stores what the client receives.
 */
export function addEndStep(res: Response, step: EndStep): void {
  const seam = seams.get(res) ?? install(res);
  seam.steps.push(step);
}

function install(res: Response): Seam {
  const seam: Seam = { steps: [], written: [], streamed: false };
  seams.set(res, seam);
  const write = res.write.bind(res) as Write;
  const end = res.end.bind(res) as End;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!seam.streamed) {
      seam.streamed = true;
      for (const step of seam.steps) step.stream?.();
    }
    if (chunk != null && seam.steps.some((step) => step.keepsStreamed)) seam.written.push(bytes(chunk, rest[0])!);
    return write(chunk, ...rest);
  }) as Response['write'];
  const finish = (args: unknown[], from: number): Response => {
    // `end()`, `end(cb)`, `end(chunk[, encoding][, cb])`, as Node takes them.
    const callback = args.find((arg) => typeof arg === 'function');
    const chunk = typeof args[0] === 'function' ? undefined : args[0];
    const encoding = typeof args[1] === 'string' ? args[1] : undefined;
    let body: Buffer | undefined;
    let changed = false;
    const ending: Ending = {
      get body() {
        return changed ? body : (body ??= bytes(chunk, encoding));
      },
      set body(value) {
        body = value;
        changed = true;
      },
      streamed: seam.streamed,
      written: seam.written,
      size: () =>
        changed || body
          ? (body?.length ?? 0)
          : typeof chunk === 'string'
            ? Buffer.byteLength(chunk)
            : (bytes(chunk)?.length ?? 0),
    };
    const send = () => {
      res.end = end as Response['end'];
      const out = changed ? [body] : chunk === undefined ? [] : [chunk, encoding];
      return end(...[...out, callback].filter((arg) => arg !== undefined));
    };
    const run = (at: number): void => {
      for (; at >= 0; at--) {
        const step = seam.steps[at];
        // A step that answers anew ends the response again: that answer goes through the steps before it only.
        const before = at - 1;
        res.end = ((...again: unknown[]) => finish(again, before)) as Response['end'];
        const outcome = step.end(ending);
        if (outcome === 'answered') return;
        // A step that fails still lets the response end (the steps before it run, then the write); should even that
        // throw, the connection is closed rather than left hanging.
        if (outcome instanceof Promise) {
          const rest = () => run(before);
          return void outcome.then(rest, rest).catch(() => res.destroy());
        }
      }
      send();
    };
    run(from);
    return res;
  };
  res.end = ((...args: unknown[]) => finish(args, seam.steps.length - 1)) as Response['end'];
  return seam;
}

/** A body as bytes: strings in their encoding (UTF-8 unless told), buffers and byte arrays as they are. */
function bytes(chunk: unknown, encoding?: unknown): Buffer | undefined {
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}
