// Finds a Redis that stalls without closing its connection: ioredis reports no error then, its commands only time out.
import type { ConnectionState } from '@cp/config';
import type Redis from 'ioredis';

/**
 * Every `intervalMs` a PING (bounded by the client's `commandTimeout`) marks `state` down when it gets no answer and up
 * when it does. While the connection is not ready, ioredis's own `error` and `ready` events keep `state`. Returns the
 * probe's stop.
 */
export function probeRedis(redis: Redis, state: ConnectionState, intervalMs = 1000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running || redis.status !== 'ready') return;
    running = true;
    redis
      .ping()
      .then(
        () => state.markUp(),
        (err: unknown) => state.markDown(err),
      )
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
