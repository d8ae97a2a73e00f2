// The event routes: `…/events`, `…/{resourceType}/events`, `…/{resourceType}/{resourceId}/events` — JSON pages or SSE.
import {
  currentPosition,
  EVENT_ROUTE_RESOURCE_TYPES,
  eventCursor,
  eventFilterFor,
  listEvents,
  positionOf,
  readEvents,
  type EventFeed,
  type EventFilter,
} from '@cp/db';
import { AppError, BadRequestError } from '@cp/errors';
import { respond, type LiveStreams } from '@cp/edge';
import { eventSince, type Context } from '@cp/graphql';
import type { AccessWatch, Credentials } from '@cp/auth';
import { MAX_BUFFERED_BYTES } from './fan-out';
import { liveEvents } from './live-queue';
import type { Request, Response } from 'express';
import { eventJson } from './event-json';

const ROUTED_TYPES: ReadonlySet<string> = new Set(EVENT_ROUTE_RESOURCE_TYPES);

const HEARTBEAT_MS = 15_000;

/** An event's SSE frame is the same for every stream that gets it: built once (the feed hands out one object). */
const frames = new WeakMap<EventRecordOf, string>();
type EventRecordOf = Parameters<typeof eventJson>[0];
function frameOf(event: EventRecordOf): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `id: ${eventCursor(event)}\nevent: ${event.type}\ndata: ${JSON.stringify(eventJson(event))}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

export const EVENT_PATHS = ['/events', '/:resourceType/events', '/:resourceType/:resourceId/events'];

function filterParams(req: Request) {
  const { organizationId, projectId, resourceType, resourceId } = req.params as Record<string, string | undefined>;
  if (resourceType !== undefined && !ROUTED_TYPES.has(resourceType)) {
    throw new AppError('NOT_FOUND', `No events route for "${resourceType}".`, { resourceType });
  }
  const type = typeof req.query.type === 'string' ? req.query.type : undefined;
  const since = eventSince(typeof req.query.since === 'string' ? req.query.since : undefined);
  return { organizationId, projectId: projectId!, resourceType, resourceId, type, since };
}

function limitParam(req: Request): number | undefined {
  if (req.query.limit === undefined) return undefined;
  const limit = Number(req.query.limit);
  if (!Number.isInteger(limit))
    throw new BadRequestError('limit must be an integer from 1 to 100.', { parameter: 'limit' });
  return limit;
}

export function eventRoutesHandler(feed: EventFeed, access: AccessWatch, streams: LiveStreams) {
  return async (req: Request, res: Response) => {
    const ctx = res.locals.context as Context;
    const params = filterParams(req);
    const filter = await eventFilterFor(ctx, params);
    const lastKey = typeof req.query.lastKey === 'string' ? req.query.lastKey : undefined;
    const afterKey = typeof req.query.afterKey === 'string' ? req.query.afterKey : undefined;
    if (
      req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream' &&
      req.header('accept')?.includes('text/event-stream')
    ) {
      const resumeFrom = req.header('last-event-id') ?? lastKey ?? afterKey;
      // The stream ends within moments of its key's revocation or its user's removal or demotion.
      const stopWatching = access.watch({
        principal: ctx.principal,
        // What the context was authenticated from (context.ts), the client's own credentials.
        credentials: res.locals.credentials as Credentials,
        authorize: (fresh) => eventFilterFor(fresh, params),
        revoke: () => res.emit('revoked'),
      });
      try {
        await stream(
          ctx,
          feed,
          streams,
          filter,
          resumeFrom === undefined ? undefined : positionOf(resumeFrom, 'Last-Event-ID'),
          req,
          res,
        );
      } finally {
        stopWatching();
      }
      return;
    }
    const page = await listEvents(ctx.em, filter, { limit: limitParam(req), lastKey, afterKey });
    respond(
      res.type('application/json'),
      JSON.stringify({ data: page.data.map(eventJson), pagination: page.pagination }),
    );
  };
}

/**
 * Server-Sent Events: replay from the client's position, then live, with no gap and no duplicate. The live
 * subscription starts before the replay; live events at or below the last replayed position are skipped.
 */
async function stream(
  ctx: Context,
  feed: EventFeed,
  streams: LiveStreams,
  filter: EventFilter,
  from: bigint | undefined,
  req: Request,
  res: Response,
) {
  const live = liveEvents(feed, filter);
  let sent = from ?? (await currentPosition(ctx.em));
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.write(': connected\n\n');
  const write = (event: EventRecordOf) => {
    sent = BigInt(event.position!);
    res.write(frameOf(event));
  };
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
  let closed = false;
  const end = () => {
    closed = true;
    clearInterval(heartbeat);
    void live.return?.();
  };
  req.on('close', end);
  res.once('revoked', end);
  // Shutdown ends the stream after the last complete event; the client reconnects elsewhere with Last-Event-ID.
  const untrack = streams.track(end);
  try {
    if (from !== undefined) {
      while (!closed) {
        const page = await readEvents(ctx.em, filter, sent, 500);
        page.forEach(write);
        if (page.length < 500) break;
      }
    }
    for await (const event of live) {
      if (closed) break;
      if (BigInt(event.position!) <= sent) continue;
      // A client that stopped reading: end its stream (it resumes with Last-Event-ID) rather than buffer without end.
      if (res.writableLength > MAX_BUFFERED_BYTES) break;
      write(event);
    }
  } catch {
    // A dropped slow subscriber: end the stream; the client reconnects with Last-Event-ID.
  } finally {
    untrack();
    clearInterval(heartbeat);
    res.end();
  }
}
