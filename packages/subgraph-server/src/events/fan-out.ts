// graphql-ws `events` subscriptions delivered straight from the event feed: each event is executed and serialised
// once per group of identical subscriptions, and the same payload bytes go to every matching socket.
import type { EventFeed, EventFilter, EventRecord } from '@cp/db';
import { execute, GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { liveEvents } from './live-queue';

/**
 * A socket that still holds more unsent bytes than this from earlier deliveries is closed with
 * {@link SLOW_CONSUMER_CLOSE_CODE}: about a thousand typical events. Memory per slow socket stays bounded (this plus
 * one page of the feed), and nobody else waits for it: writes never block.
 */
export const MAX_BUFFERED_BYTES = 256 * 1024;
/** Close code for a socket that could not keep up (4008, after 1008 "policy violation"); resume by event id. */
export const SLOW_CONSUMER_CLOSE_CODE = 4008;
export const SLOW_CONSUMER_CLOSE_REASON = 'Slow consumer: too many unsent events';

/** What the fan-out needs of a server-side WebSocket (`ws`). */
export interface FanOutSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code: number, reason: string): void;
}
const OPEN = 1;
/** A WebSocket frame's header, at most. */
const FRAME_HEADER_BYTES = 10;

/**
 * Bytes written to each socket in the current synchronous pass (one page of the feed): they cannot have left yet,
 * so they don't count against the socket. Cleared once the pass ends.
 */
const writtenThisPass = new Map<FanOutSocket, number>();
function wrote(socket: FanOutSocket, bytes: number): void {
  if (writtenThisPass.size === 0) queueMicrotask(() => writtenThisPass.clear());
  writtenThisPass.set(socket, (writtenThisPass.get(socket) ?? 0) + bytes);
}
function behind(socket: FanOutSocket): boolean {
  return socket.bufferedAmount - (writtenThisPass.get(socket) ?? 0) > MAX_BUFFERED_BYTES;
}

/**
 * What the `events` field's `subscribe` returns: the filter the caller was allowed. Iterated directly (plain
 * graphql-js `subscribe`) it is an ordinary per-subscriber stream; the fan-out recognises it and delivers in groups.
 */
export class EventStream implements AsyncIterable<EventRecord> {
  constructor(
    readonly feed: Pick<EventFeed, 'subscribe'>,
    readonly filter: EventFilter,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<EventRecord> {
    return liveEvents(this.feed as EventFeed, this.filter);
  }
}

/** Subscriptions whose results are byte-for-byte the same for the same event. */
interface Group {
  args: ExecutionArgs;
  members: number;
  /** The last event executed for this group and its serialised result: the feed hands one event to all in turn. */
  event?: EventRecord;
  payload?: string;
}

/** The `subscribe` graphql-ws calls, with the socket and subscription id of the operation. */
export interface FanOutTarget {
  socket: FanOutSocket;
  id: string;
}

export class EventFanOut {
  private readonly groups = new Map<string, Group>();
  /** Documents are compared by identity (the server shares one parsed document per query text). */
  private readonly documents = new WeakMap<DocumentNode, number>();
  private nextDocument = 0;
  private count = 0;

  /** Registered subscriptions (the `cp_graphql_ws_subscriptions` gauge). */
  get subscriptions(): number {
    return this.count;
  }

  /**
   * graphql-js `subscribe`, except that an `events` stream is not iterated per subscriber: the result is an iterator
   * that yields nothing (graphql-ws keeps it to end the subscription) while the feed writes frames to the socket.
   */
  async subscribe(
    args: ExecutionArgs,
    target: FanOutTarget | undefined,
    createSourceEventStream: (args: ExecutionArgs) => Promise<AsyncIterable<unknown> | ExecutionResult>,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) return source;
    if (!(source instanceof EventStream) || !target) return mapped(source, args);
    return this.attach(source, args, target);
  }

  private attach(source: EventStream, args: ExecutionArgs, { socket, id }: FanOutTarget) {
    let document = this.documents.get(args.document);
    if (document === undefined) this.documents.set(args.document, (document = this.nextDocument++));
    // Same document, operation, variables and visibility: the `Event` fields resolve from the event alone, and with
    // visibility in the key a resolver that ever looks at the caller's rights stays correct.
    const variables = JSON.stringify(args.variableValues ?? {});
    const key = [document, args.operationName ?? '', variables, source.filter.visibility].join('\0');
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { args, members: 0 }));
    const shared = group;
    shared.members++;
    this.count++;
    // graphql-ws writes `{"id":…,"type":"next","payload":…}`: the same keys in the same order, so the same bytes.
    const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
    const unsubscribe = source.feed.subscribe({
      filter: source.filter,
      push: (event) => {
        if (socket.readyState !== OPEN) return true;
        if (behind(socket)) {
          socket.close(SLOW_CONSUMER_CLOSE_CODE, SLOW_CONSUMER_CLOSE_REASON);
          return false;
        }
        const frame = head + payloadOf(shared, event) + '}';
        socket.send(frame);
        wrote(socket, Buffer.byteLength(frame) + FRAME_HEADER_BYTES);
        return true;
      },
      dropped: () => undefined,
    });
    let done = false;
    let finish: (() => void) | undefined;
    const end = () => {
      if (done) return;
      done = true;
      unsubscribe();
      this.count--;
      if (--shared.members === 0 && this.groups.get(key) === shared) this.groups.delete(key);
      finish?.();
    };
    const silent: AsyncIterableIterator<ExecutionResult> = {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () => (done ? Promise.resolve(finished) : new Promise((resolve) => (finish = () => resolve(finished)))),
      return: async () => {
        end();
        return finished;
      },
    };
    return silent;
  }
}

const finished: IteratorReturnResult<undefined> = { value: undefined, done: true };

/** What graphql-ws would put after `"payload":` for this event (execution as graphql-js `subscribe` does it). */
function payloadOf(group: Group, event: EventRecord): string {
  if (group.event !== event) {
    const result = execute({ ...group.args, rootValue: event });
    // The fields of `Event` are plain properties, so execution is synchronous; a promise would mean a resolver
    // reached out, and an error in the payload is better than a frame out of order.
    const unsettled = { errors: [new GraphQLError('Event fields must resolve synchronously.')] };
    const settled = 'then' in result ? unsettled : result;
    const { errors, ...rest } = settled as ExecutionResult;
    group.event = event;
    group.payload = JSON.stringify({ ...rest, ...(errors ? { errors } : {}) });
  }
  return group.payload!;
}

/** graphql-js's own mapping of a source stream to results, for subscription fields other than `events`. */
async function* mapped(source: AsyncIterable<unknown>, args: ExecutionArgs): AsyncGenerator<ExecutionResult> {
  for await (const payload of source) yield await execute({ ...args, rootValue: payload });
}
