// The HTTP routes that are not GraphQL-derived (uploads, CDN, events) as OpenAPI documents them. app.ts mounts the event
// routes from here and the modules' `http()` routes from the subgraphs; test/api-docs.test.ts fails when the two differ.
import { PROJECT_PATH, type RouteFamily } from '@cp/graphql';
import { EVENT_PATHS } from '../events/event-routes';

export interface PlainRoute {
  /** Documentation key (see openapi/plain-operations.ts). */
  id:
    | 'assetUpload'
    | 'componentAssetUpload'
    | 'assetCdn'
    | 'componentAssetCdn'
    | 'events'
    | 'resourceTypeEvents'
    | 'resourceEvents';
  method: 'GET' | 'POST';
  /** Express path (`:param`), absolute. */
  path: string;
  /** The OpenAPI document that describes it; CDN routes are public and live in the client (`api`) document. */
  family: RouteFamily;
}

const APP_PROJECT = `/app/v1${PROJECT_PATH}`;

export const UPLOAD_ROUTES = {
  asset: { id: 'assetUpload', method: 'POST', path: `${APP_PROJECT}/assets`, family: 'app' },
  componentAsset: {
    id: 'componentAssetUpload',
    method: 'POST',
    path: `${APP_PROJECT}/components/:componentId/assets`,
    family: 'app',
  },
} as const satisfies Record<string, PlainRoute>;

export const CDN_ROUTES = {
  asset: {
    id: 'assetCdn',
    method: 'GET',
    path: '/cdn/:organizationId/:projectId/assets/:assetId/:filename',
    family: 'api',
  },
  componentAsset: {
    id: 'componentAssetCdn',
    method: 'GET',
    path: '/cdn/:organizationId/:projectId/component-assets/:assetId/:filename',
    family: 'api',
  },
} as const satisfies Record<string, PlainRoute>;

const EVENT_IDS = ['events', 'resourceTypeEvents', 'resourceEvents'] as const;

/** The three event routes (D9) of a family, JSON or SSE on the same path. */
export function eventRoutes(family: RouteFamily): PlainRoute[] {
  return EVENT_PATHS.map((path, i) => ({
    id: EVENT_IDS[i],
    method: 'GET',
    path: `/${family}/v1${PROJECT_PATH}${path}`,
    family,
  }));
}

export const PLAIN_ROUTES: PlainRoute[] = [
  ...Object.values(UPLOAD_ROUTES),
  ...Object.values(CDN_ROUTES),
  ...eventRoutes('app'),
  ...eventRoutes('api'),
];
