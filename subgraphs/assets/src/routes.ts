// REST routes of the assets subgraph.
import { PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const assets = `${PROJECT_PATH}/assets`;

export const assetRoutes: RestRoutes = {
  'Query.assets': { app: { method: 'GET', path: assets }, api: { method: 'GET', path: assets } },
  'Query.asset': { app: { method: 'GET', path: `${assets}/:id` } },
};
