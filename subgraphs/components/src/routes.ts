// REST routes of the components subgraph.
import { PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const components = `${PROJECT_PATH}/components`;

export const componentRoutes: RestRoutes = {
  'Query.components': { app: { method: 'GET', path: components }, api: { method: 'GET', path: components } },
  'Query.component': { app: { method: 'GET', path: `${components}/:id` }, api: { method: 'GET', path: `${components}/:id` } },
};
