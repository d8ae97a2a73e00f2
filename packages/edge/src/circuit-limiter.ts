// A rate limiter on a shared store behind a circuit: a store that stalls costs one request its time-out, not every one.
import type { Circuit } from '@cp/config';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

type Options = { [key: string]: unknown };
/** A refusal is the store's answer, not its failure: carried through the circuit as a value. */
type Answer<T> = { ok: T } | { refused: RateLimiterRes };

/**
 * Asks `store` (Redis) through `circuit`; when the store fails, times out, or the circuit is open, this process's
 * memory counts instead (the class itself is that memory limiter, with the store's window) — rate-limiter-flexible's
 * insurance limiter, except that an open circuit skips the store at once instead of waiting out each call's time-out.
 */
export class CircuitLimiter extends RateLimiterMemory {
  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly circuit: Circuit,
  ) {
    super({ points: store.points, duration: store.duration, keyPrefix: store.keyPrefix });
  }

  private async route<T>(call: (limiter: RateLimiterAbstract) => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    let answer: Answer<T>;
    try {
      answer = await this.circuit.run(() =>
        call(this.store).then(
          (ok): Answer<T> => ({ ok }),
          (rejection: unknown) =>
            rejection instanceof RateLimiterRes ? { refused: rejection } : Promise.reject(rejection),
        ),
      );
    } catch {
      return fallback();
    }
    if ('refused' in answer) throw answer.refused;
    return answer.ok;
  }

  override consume(key: string | number, points?: number, options?: Options) {
    return this.route(
      (l) => l.consume(key, points, options),
      () => super.consume(key, points, options),
    );
  }
  override penalty(key: string | number, points?: number, options?: Options) {
    return this.route(
      (l) => l.penalty(key, points, options),
      () => super.penalty(key, points, options),
    );
  }
  override reward(key: string | number, points?: number, options?: Options) {
    return this.route(
      (l) => l.reward(key, points, options),
      () => super.reward(key, points, options),
    );
  }
  override get(key: string | number, options?: Options) {
    return this.route(
      (l) => l.get(key, options),
      () => super.get(key, options),
    );
  }
  override set(key: string | number, points: number, secDuration: number, options?: Options) {
    return this.route(
      (l) => l.set(key, points, secDuration, options),
      () => super.set(key, points, secDuration, options),
    );
  }
  override block(key: string | number, secDuration: number, options?: Options) {
    return this.route(
      (l) => l.block(key, secDuration, options),
      () => super.block(key, secDuration, options),
    );
  }
  override delete(key: string | number, options?: Options) {
    return this.route(
      (l) => l.delete(key, options),
      () => super.delete(key, options),
    );
  }
}
