// REST routes of the assets subgraph (upload and CDN delivery are HTTP routes, see asset/asset.http-routes.ts).
import { PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const assets = `${PROJECT_PATH}/assets`;

export const assetRoutes: RestRoutes = {
  'Query.assets': { app: { method: 'GET', path: assets }, api: { method: 'GET', path: assets } },
  'Query.asset': { app: { method: 'GET', path: `${assets}/:id` } },
  'Mutation.updateAsset': { app: { method: 'PUT', path: `${assets}/:id` } },
  'Mutation.deleteAsset': { app: { method: 'DELETE', path: `${assets}/:id` } },
};
