// The event routes a gateway serves: the three of each API family, JSON pages or SSE on the same path, declared like a
// module's HTTP routes (`HttpRoute`) with their OpenAPI operation.
import { EVENT_ROUTE_RESOURCE_TYPES, type EventFeed } from '@cp/db';
import type { LiveStreams } from '@cp/edge';
import { errorResponses, successHeaders } from '@cp/errors';
import { PROJECT_PATH, type ApiFamily } from '@cp/graphql';
import { PAGINATION_PARAMETERS, type HttpRoute } from '@cp/host';
import type { AccessWatch } from '@cp/auth';
import type { OpenAPIV3 } from 'openapi-types';
import { EVENT_PATHS, eventRoutesHandler } from './event-routes';

/** What the event routes' handler streams from. */
export interface EventRouteDeps {
  feed: EventFeed;
  access: AccessWatch;
  streams: LiveStreams;
}

const SCOPES = [
  { id: 'Events', summary: 'Events of the project, oldest first.' },
  { id: 'ResourceTypeEvents', summary: 'Events of one resource type.' },
  { id: 'ResourceEvents', summary: 'Events of one resource.' },
];

const RESOURCE_TYPE: OpenAPIV3.ParameterObject = {
  in: 'path',
  name: 'resourceType',
  required: true,
  schema: { type: 'string', enum: [...EVENT_ROUTE_RESOURCE_TYPES] },
};

function operation(family: ApiFamily, scope: number): OpenAPIV3.OperationObject {
  return {
    operationId: `${family === 'app' ? 'admin' : 'client'}${SCOPES[scope].id}`,
    tags: ['events'],
    summary: SCOPES[scope].summary,
    description:
      'JSON pages (cursor pagination), or with `Accept: text/event-stream` a Server-Sent Events stream: `id:` is the cursor, ' +
      '`event:` the type, `data:` the JSON event, `: ping` every 15 s; `Last-Event-ID` (or `lastKey`) resumes with no gap.' +
      (family === 'api' ? ' API keys see published-state events only.' : ''),
    parameters: [
      ...(scope > 0 ? [RESOURCE_TYPE] : []),
      {
        in: 'query',
        name: 'type',
        required: false,
        schema: { type: 'string' },
        description: 'Only this event type, e.g. `content.published`.',
      },
      {
        in: 'query',
        name: 'since',
        required: false,
        schema: { type: 'string', format: 'date-time' },
        description: 'Only events at or after this instant.',
      },
      ...PAGINATION_PARAMETERS.cursor,
      {
        in: 'header',
        name: 'Last-Event-ID',
        required: false,
        schema: { type: 'string' },
        description: 'SSE: resume after this event.',
      },
    ],
    responses: {
      '200': {
        description: 'A page of events, or an event stream.',
        headers: successHeaders(true),
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/EventList' } },
          'text/event-stream': {
            schema: {
              type: 'string',
              description: 'Server-Sent Events: `id`, `event` and `data` (the JSON event) per message.',
            },
          },
        },
      },
      ...errorResponses({ authenticated: true, write: false, body: false }),
    },
  };
}

/** The event routes of a family: the caller's credential decides what it sees (`eventFilterFor`). */
function eventHttpRoutes(family: ApiFamily): HttpRoute<EventRouteDeps>[] {
  return EVENT_PATHS.map((path, scope) => ({
    method: 'get',
    path: `/${family}/v1${PROJECT_PATH}${path}`,
    family,
    auth: 'credential',
    operation: operation(family, scope),
    handler: ({ feed, access, streams }) => eventRoutesHandler(feed, access, streams),
  }));
}

export const EVENT_HTTP_ROUTES: readonly HttpRoute<EventRouteDeps>[] = [
  ...eventHttpRoutes('app'),
  ...eventHttpRoutes('api'),
];
