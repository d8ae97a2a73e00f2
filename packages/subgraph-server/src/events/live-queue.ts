// A bounded queue between the event feed and one consumer: overflow drops the consumer, who resumes by cursor.
import type { EventFeed, EventFilter, EventRecord } from '@cp/db';

export const MAX_QUEUED_EVENTS = 1000;

export class SubscriberOverflowError extends Error {
  constructor() {
    super(`More than ${MAX_QUEUED_EVENTS} events were waiting for this subscriber; resume from the last event id.`);
  }
}

/** An async iterator over live events matching `filter`; `return()` unsubscribes. */
export function liveEvents(feed: EventFeed, filter: EventFilter): AsyncIterableIterator<EventRecord> {
  const queue: EventRecord[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  let done = false;
  const unsubscribe = feed.subscribe({
    filter,
    push(event) {
      if (queue.length >= MAX_QUEUED_EVENTS) return false;
      queue.push(event);
      wake?.();
      return true;
    },
    dropped() {
      failure = new SubscriberOverflowError();
      wake?.();
    },
  });
  const finish = () => {
    done = true;
    unsubscribe();
    wake?.();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<EventRecord>> {
      while (!done) {
        const event = queue.shift();
        if (event) return { value: event, done: false };
        if (failure) {
          finish();
          throw failure;
        }
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
      return { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<EventRecord>> {
      finish();
      return { value: undefined, done: true };
    },
  };
}
