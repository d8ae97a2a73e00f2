// graphql-ws `events` subscriptions delivered straight from the event feed: each event is matched, executed and
// serialised once per group of identical subscriptions, and each socket gets one frame built from those bytes.
import type { EventFeed, EventFilter, EventRecord } from '@cp/db';
import { execute, GraphQLError, type ExecutionArgs } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { directSocket, writeText, type FanOutSocket } from './frames';
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

const OPEN = 1;

/** Per socket: bytes written to it in the current synchronous pass (one page of the feed). */
interface SocketPass {
  pass: number;
  bytes: number;
}
/**
 * Bytes written in the current pass cannot have left yet, so they don't count against the socket. The pass number
 * moves on once the pass ends (a microtask), which resets every socket's count without touching it.
 */
let pass = 0;
let passOpen = false;
const passes = new WeakMap<FanOutSocket, SocketPass>();
function wrote(state: SocketPass, bytes: number): void {
  if (!passOpen) {
    passOpen = true;
    queueMicrotask(() => {
      passOpen = false;
      pass++;
    });
  }
  if (state.pass !== pass) {
    state.pass = pass;
    state.bytes = 0;
  }
  state.bytes += bytes;
}
function behind(socket: FanOutSocket, state: SocketPass): boolean {
  return socket.bufferedAmount - (state.pass === pass ? state.bytes : 0) > MAX_BUFFERED_BYTES;
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

/** One subscription: where its frames go, and its frames' start (`{"id":…,"type":"next","payload":`). */
interface Member {
  socket: FanOutSocket;
  direct: ReturnType<typeof directSocket>;
  head: Buffer;
  pass: SocketPass;
}

/**
 * Subscriptions whose results are byte-for-byte the same for the same event and that receive the same events: one
 * subscription to the feed (one filter match per event) and one execution and serialisation per event for them all.
 */
interface Group {
  args: ExecutionArgs;
  members: Set<Member>;
  unsubscribe: () => void;
  /** The last event executed for this group and its serialised result with the message's closing brace. */
  event?: EventRecord;
  payload?: Buffer;
}

/** The `subscribe` graphql-ws calls, with the socket and subscription id of the operation. */
export interface FanOutTarget {
  socket: FanOutSocket;
  id: string;
}

export class EventFanOut {
  private readonly groups = new Map<string, Group>();
  /** Documents and feeds are compared by identity (the server shares one parsed document per query text). */
  private readonly identities = new WeakMap<object, number>();
  private nextIdentity = 0;
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

  private identity(of: object): number {
    let n = this.identities.get(of);
    if (n === undefined) this.identities.set(of, (n = this.nextIdentity++));
    return n;
  }

  private attach(source: EventStream, args: ExecutionArgs, { socket, id }: FanOutTarget) {
    // Same feed, document, operation and variables: the same result for the same event (the `Event` fields resolve
    // from the event alone). Same filter (which holds the visibility): the same events. With the visibility in the
    // key, a resolver that ever looks at the caller's rights stays correct.
    const { filter } = source;
    const key = [
      this.identity(source.feed),
      this.identity(args.document),
      args.operationName ?? '',
      JSON.stringify(args.variableValues ?? {}),
      JSON.stringify([filter.organizationId, filter.projectId, filter.resourceType, filter.resourceId, filter.type]),
      filter.since?.toISOString() ?? '',
      filter.visibility,
    ].join('\0');
    let group = this.groups.get(key);
    if (!group) {
      const members = new Set<Member>();
      const created: Group = { args, members, unsubscribe: () => undefined };
      created.unsubscribe = source.feed.subscribe({
        filter,
        // The group never asks the feed to drop it: a slow socket is closed on its own, the others carry on.
        push: (event) => (deliver(created, event), true),
        dropped: () => undefined,
      });
      this.groups.set(key, (group = created));
    }
    const shared = group;
    let pass = passes.get(socket);
    if (!pass) passes.set(socket, (pass = { pass: -1, bytes: 0 }));
    // graphql-ws writes `{"id":…,"type":"next","payload":…}`: the same keys in the same order, so the same bytes.
    const head = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
    const member: Member = { socket, direct: directSocket(socket), head, pass };
    shared.members.add(member);
    this.count++;
    let done = false;
    let finish: (() => void) | undefined;
    const end = () => {
      if (done) return;
      done = true;
      this.count--;
      shared.members.delete(member);
      if (shared.members.size === 0 && this.groups.get(key) === shared) {
        this.groups.delete(key);
        shared.unsubscribe();
      }
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

/** Writes one event's frame to every open member; one that is too far behind is closed instead (and left out). */
function deliver(group: Group, event: EventRecord): void {
  const payload = payloadOf(group, event);
  for (const member of group.members) {
    const { socket } = member;
    if (socket.readyState !== OPEN) continue;
    if (behind(socket, member.pass)) {
      socket.close(SLOW_CONSUMER_CLOSE_CODE, SLOW_CONSUMER_CLOSE_REASON);
      continue;
    }
    wrote(member.pass, writeText(socket, member.direct, member.head, payload));
  }
}

const finished: IteratorReturnResult<undefined> = { value: undefined, done: true };

/** What graphql-ws would put after `"payload":`, and the closing brace (execution as graphql-js `subscribe` does it). */
function payloadOf(group: Group, event: EventRecord): Buffer {
  if (group.event !== event) {
    const result = execute({ ...group.args, rootValue: event });
    // The fields of `Event` are plain properties, so execution is synchronous; a promise would mean a resolver
    // reached out, and an error in the payload is better than a frame out of order.
    const unsettled = { errors: [new GraphQLError('Event fields must resolve synchronously.')] };
    const settled = 'then' in result ? unsettled : result;
    const { errors, ...rest } = settled as ExecutionResult;
    group.event = event;
    group.payload = Buffer.from(JSON.stringify({ ...rest, ...(errors ? { errors } : {}) }) + '}');
  }
  return group.payload!;
}

/** graphql-js's own mapping of a source stream to results, for subscription fields other than `events`. */
async function* mapped(source: AsyncIterable<unknown>, args: ExecutionArgs): AsyncGenerator<ExecutionResult> {
  for await (const payload of source) yield await execute({ ...args, rootValue: payload });
}
