// REST routes of the content subgraph on the spec's paths (admin `/app/v1`, client `/api/v1`).
import { PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const types = `${PROJECT_PATH}/content-types`;

export const contentRoutes: RestRoutes = {
  'Query.contentTypes': { app: { method: 'GET', path: types }, api: { method: 'GET', path: types } },
  'Query.contentType': { app: { method: 'GET', path: `${types}/:id` }, api: { method: 'GET', path: `${types}/:id` } },
  'Mutation.createContentType': { app: { method: 'POST', path: types, responseStatus: 201 } },
  'Mutation.updateContentType': { app: { method: 'PUT', path: `${types}/:id` } },
};
