// Grouped graphql-ws delivery (one execution and serialisation per group of identical subscriptions) against the
// per-subscriber path: the same frames, byte for byte, in the same order, for random mixes of documents,
// variables, visibilities and filters; and a socket that stops reading is closed (4008) without delaying the others.
import { EventFeed, EventRecord, type EventFilter } from '@cp/db';
import { EventFanOut, EventStream, SLOW_CONSUMER_CLOSE_CODE, textFrame, type FanOutSocket } from '@cp/subgraph-server';
import fc from 'fast-check';
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { ROOT } from './support/service';
import { waitFor } from './support/wait';

// The server's graphql instance (CommonJS): schemas built by another instance are refused by its `execute`.
const { buildSchema, createSourceEventStream, parse, subscribe, validate } = createRequire(__filename)(
  'graphql',
) as typeof import('graphql');
const RUNS = Number(process.env.FC_RUNS ?? 25);
const SEED = Number(process.env.FC_SEED ?? 20261125);

/** Documents subscribers send: selections, aliases, fragments, `@include` on sub-fields, named operations. */
const DOCUMENTS = [
  'subscription { events(projectId: "p1") { id type resourceId } }',
  'subscription { events(projectId: "p1") { resourceId } }',
  'subscription S { events(projectId: "p1") { __typename a: id b: resourceType version occurredAt actorId } }',
  'subscription($full: Boolean!) { events(projectId: "p1") { id projectId @include(if: $full) ...F } }\n' +
    'fragment F on Event { organizationId version }',
  'subscription($skip: Boolean!, $type: String) { events(projectId: "p1", resourceType: $type) ' +
    '{ type actorId @skip(if: $skip) } }',
];
const VISIBILITIES = ['published', 'preview', 'admin'] as const;
const RESOURCE_TYPES = ['content', 'content-types', 'assets', 'tags'] as const;

/** The API schema with `Subscription.events` returning what the server's does: an {@link EventStream}. */
function schemaFor(feed: EventFeed): GraphQLSchema {
  const schema = buildSchema(readFileSync(join(ROOT, 'schema/api.graphql'), 'utf8'));
  const events = schema.getSubscriptionType()!.getFields().events;
  events.subscribe = (_root, _args, ctx: { filter: EventFilter }) => new EventStream(feed, ctx.filter);
  events.resolve = (event: EventRecord) => event;
  return schema;
}

/** What graphql-ws's per-subscriber path writes for one result. */
function graphqlWsFrame(id: string, result: ExecutionResult): string {
  const { errors, ...rest } = result;
  const payload = { ...rest, ...(errors ? { errors: errors.map((e) => e.toJSON()) } : {}) };
  return JSON.stringify({ id, type: 'next', payload });
}

/** `ws`'s own framing: exported by `ws`, not by its types. */
const { Sender } = createRequire(__filename)('ws') as { Sender: { frame(data: Buffer, options: object): Buffer[] } };
/** The options `ws` frames a text message with on a server socket (unmasked, final, no compression). */
const SERVER_TEXT = { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false };
/** What `ws`'s `send(text)` writes to a server socket's TCP connection: `ws`'s own framing, header then body. */
const wsSendBytes = (text: string) => Buffer.concat(Sender.frame(Buffer.from(text), SERVER_TEXT));

/**
 * A WebSocket server and `count` client connections; `server[i]` is the server's end of `clients[i]`, and each
 * client keeps the raw bytes it received as well as the messages. `deflate`: the server offers permessage-deflate
 * (our server doesn't; the fan-out then sends through `ws`).
 */
async function sockets(count: number, { deflate = false } = {}) {
  const wss = new WebSocketServer({ port: 0, perMessageDeflate: deflate });
  await new Promise((r) => wss.once('listening', r));
  const byPort = new Map<number, WebSocket>();
  wss.on('connection', (s, request) => byPort.set(request.socket.remotePort!, s));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const clients = await Promise.all(
    Array.from({ length: count }, () => {
      const c = new WebSocket(url);
      const frames: string[] = [];
      const raw: Buffer[] = [];
      let closed: (code: number) => void;
      const closing = new Promise<number>((r) => (closed = r));
      c.on('message', (data) => frames.push(String(data)));
      c.on('close', (code) => closed(code));
      return new Promise<{
        socket: WebSocket;
        frames: string[];
        raw: Buffer[];
        closing: Promise<number>;
        deflate: boolean;
      }>((r) =>
        c.once('open', () => {
          // Beside `ws`'s own reader: every byte after the handshake, as the server wrote it.
          (c as unknown as { _socket: Socket })._socket.on('data', (chunk: Buffer) => raw.push(chunk));
          r({ socket: c, frames, raw, closing, deflate });
        }),
      );
    }),
  );
  const port = (c: WebSocket) => (c as unknown as { _socket: Socket })._socket.localPort!;
  while (byPort.size < count) await new Promise((r) => setTimeout(r, 5));
  const server = clients.map((c) => byPort.get(port(c.socket))!);
  return { wss, server, clients, close: () => new Promise((r) => wss.close(r)) };
}

const eventArb = fc.record({
  project: fc.constantFrom('p1', 'p2'),
  resourceType: fc.constantFrom(...RESOURCE_TYPES),
  resourceId: fc.constantFrom('r1', 'r2', 'r3'),
  published: fc.boolean(),
  version: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
  actorId: fc.option(fc.constantFrom('u1', 'u2'), { nil: null }),
});

const subscriberArb = fc.record({
  // Socket 4 negotiated permessage-deflate.
  socket: fc.nat({ max: 4 }),
  document: fc.nat({ max: DOCUMENTS.length - 1 }),
  full: fc.boolean(),
  skip: fc.boolean(),
  type: fc.option(fc.constantFrom(...RESOURCE_TYPES), { nil: undefined }),
  // Weighted so that subscribers often share a document and visibility but not their variables.
  visibility: fc.oneof({ arbitrary: fc.constant('admin' as const), weight: 4 }, fc.constantFrom(...VISIBILITIES)),
  resourceType: fc.option(fc.constantFrom(...RESOURCE_TYPES), { nil: undefined, freq: 2 }),
});

describe('grouped fan-out', () => {
  let net: Pick<Awaited<ReturnType<typeof sockets>>, 'server' | 'clients'>;
  let closing: Array<() => Promise<unknown>>;
  beforeAll(async () => {
    const [plain, deflated] = await Promise.all([sockets(4), sockets(1, { deflate: true })]);
    net = { server: [...plain.server, ...deflated.server], clients: [...plain.clients, ...deflated.clients] };
    closing = [plain.close, deflated.close];
  });
  afterAll(async () => {
    for (const c of net.clients) c.socket.terminate();
    await Promise.all(closing.map((close) => close()));
  });

  it('gives every subscriber the frames per-subscriber execution gives it, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(subscriberArb, { minLength: 1, maxLength: 40 }),
        fc.array(eventArb, { minLength: 1, maxLength: 30 }),
        async (subscribers, events) => {
          // The feed is the real one, handed events directly (no database: its reading is not under test here).
          const feed = new EventFeed(undefined as never, undefined as never);
          const schema = schemaFor(feed);
          const fanOut = new EventFanOut();
          const documents = DOCUMENTS.map((text) => parse(text));
          for (const d of documents) expect(validate(schema, d)).toEqual([]);
          for (const c of net.clients) c.frames.length = c.raw.length = 0;
          const expected = new Map<string, string[]>();
          const stops: Array<() => unknown> = [];
          for (const [n, s] of subscribers.entries()) {
            const id = `s${n}`;
            const filter: EventFilter = {
              organizationId: 'o1',
              projectId: 'p1',
              resourceType: s.resourceType,
              visibility: s.visibility,
            };
            const args = (document: DocumentNode): ExecutionArgs => ({
              schema,
              document,
              operationName: s.document === 2 ? 'S' : undefined,
              variableValues: [{}, {}, {}, { full: s.full }, { skip: s.skip, type: s.type }][s.document],
              contextValue: { filter },
            });
            // Per subscriber, as before: graphql-js iterates the stream and executes each event for this subscriber.
            const reference = (await subscribe(args(parse(DOCUMENTS[s.document])))) as AsyncGenerator<ExecutionResult>;
            const frames: string[] = [];
            expected.set(`${s.socket}/${id}`, frames);
            void (async () => {
              for await (const result of reference) frames.push(graphqlWsFrame(id, result));
            })();
            stops.push(() => reference.return(undefined));
            // Grouped: the shared parsed document, as the server's document cache hands it out.
            const target = { socket: net.server[s.socket] as FanOutSocket, id };
            const grouped = await fanOut.subscribe(args(documents[s.document]), target, createSourceEventStream);
            stops.push(() => (grouped as AsyncGenerator).return(undefined));
          }
          let position = 0;
          for (const e of events) {
            const event = Object.assign(new EventRecord(), {
              type: `${e.resourceType}.updated`,
              resourceType: e.resourceType,
              resourceId: e.resourceId,
              organizationId: 'o1',
              projectId: e.project,
              version: e.version,
              published: e.published,
              actorId: e.actorId,
              occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)),
              position: String(++position),
            });
            feed.deliver(event);
          }
          await new Promise((r) => setImmediate(r));
          const total = [...expected.values()].reduce((n, f) => n + f.length, 0);
          await waitFor('every frame', () => net.clients.reduce((n, c) => n + c.frames.length, 0) >= total, {
            intervalMs: 5,
          });
          await Promise.all(stops.map((stop) => stop()));
          expect(fanOut.subscriptions).toBe(0);
          for (const [socket, client] of net.clients.entries()) {
            const got = new Map<string, string[]>();
            for (const frame of client.frames) {
              const key = `${socket}/${(JSON.parse(frame) as { id: string }).id}`;
              got.set(key, [...(got.get(key) ?? []), frame]);
            }
            for (const [key, frames] of expected) {
              if (key.startsWith(`${socket}/`)) expect(got.get(key) ?? [], key).toEqual(frames);
            }
            expect([...got.keys()].every((key) => expected.has(key))).toBe(true);
            // On the wire: what `ws.send` of those same messages would have written, byte for byte (frames built by
            // the fan-out itself; a deflate socket's go through `ws`, compressed).
            if (client.deflate) continue;
            const wire = Buffer.concat(client.raw);
            expect(wire.equals(Buffer.concat(client.frames.map(wsSendBytes))), `socket ${socket}`).toBe(true);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it("builds the frame `ws` builds for the same text, at every length's header size", () => {
    // Lengths around the 7-bit, 16-bit and 64-bit length forms, and texts with multi-byte characters.
    const length = fc.oneof(fc.nat({ max: 300 }), fc.integer({ min: 65_400, max: 65_700 }), fc.constant(70_000));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), length, fc.string({ maxLength: 3 }), (id, n, unit) => {
        const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
        const payload = (unit || 'x').repeat(n).slice(0, n) + '}';
        const { frame, headerBytes } = textFrame(Buffer.from(head), Buffer.from(payload));
        expect(frame.equals(wsSendBytes(head + payload))).toBe(true);
        expect(frame.toString('utf8', headerBytes)).toBe(head + payload);
      }),
      { numRuns: RUNS * 8, seed: SEED },
    );
  });

  it('closes a socket that stops reading (4008) while the others get every event', async () => {
    const { server, clients, close } = await sockets(4);
    const feed = new EventFeed(undefined as never, undefined as never);
    const schema = schemaFor(feed);
    const fanOut = new EventFanOut();
    // 20 aliases of a 2 KB resource id: about 40 KB per event, so the kernel's buffers and then the socket's own fill.
    const fields = Array.from({ length: 20 }, (_, i) => `a${i}: resourceId`).join(' ');
    const document = parse(`subscription { events(projectId: "p1") { ${fields} } }`);
    const filter: EventFilter = { organizationId: 'o1', projectId: 'p1', visibility: 'admin' };
    for (const socket of server) {
      const args = { schema, document, contextValue: { filter } };
      await fanOut.subscribe(args, { socket, id: '1' }, createSourceEventStream);
    }
    const slow = clients[0];
    (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const EVENTS = 600;
    const fast = clients.slice(1);
    for (let position = 1; position <= EVENTS; position++) {
      feed.deliver(
        Object.assign(new EventRecord(), {
          type: 'content.updated',
          resourceType: 'content',
          resourceId: 'x'.repeat(2048),
          organizationId: 'o1',
          projectId: 'p1',
          published: true,
          position: String(position),
        }),
      );
      // Every fast socket gets each event while the slow one is still not reading: nobody waits for it.
      await waitFor(`event ${position} at every fast socket`, () => fast.every((c) => c.frames.length === position), {
        intervalMs: 5,
      });
    }
    expect(fast.map((c) => c.frames.length)).toEqual([EVENTS, EVENTS, EVENTS]);
    expect(server[0].readyState).toBe(WebSocket.CLOSING);
    (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slow.closing).toBe(SLOW_CONSUMER_CLOSE_CODE);
    expect(slow.frames.length).toBeLessThan(EVENTS);
    for (const c of clients) c.socket.terminate();
    await close();
  });
});
