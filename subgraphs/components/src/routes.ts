// REST routes of the components subgraph (lifecycle routes, packages).
import { PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const components = `${PROJECT_PATH}/components`;
const packages = `${PROJECT_PATH}/packages`;
const post = (path: string) => ({ app: { method: 'POST' as const, path } });

export const componentRoutes: RestRoutes = {
  'Query.components': { app: { method: 'GET', path: components }, api: { method: 'GET', path: components } },
  'Query.component': {
    app: { method: 'GET', path: `${components}/:id` },
    api: { method: 'GET', path: `${components}/:id` },
  },
  'Query.componentVersions': { app: { method: 'GET', path: `${components}/:id/versions` } },
  'Mutation.createComponent': {
    app: { method: 'POST', path: components, responseStatus: 201, bodyErrors: 'fieldMap' },
  },
  'Mutation.updateComponent': { app: { method: 'PUT', path: `${components}/:id` } },
  'Mutation.deleteComponent': { app: { method: 'DELETE', path: `${components}/:id` } },
  'Mutation.discardComponent': post(`${components}/:id/discard`),
  'Mutation.rollbackComponent': post(`${components}/:id/rollback`),
  'Mutation.restoreComponent': post(`${components}/:id/restore`),
  'Query.componentAssets': { app: { method: 'GET', path: `${components}/:componentId/assets` } },
  'Mutation.setComponentAssetStatus': post(`${components}/:componentId/assets/:assetId/status`),
  'Query.packages': { app: { method: 'GET', path: packages }, api: { method: 'GET', path: packages } },
  'Query.package': { app: { method: 'GET', path: `${packages}/:version` } },
  'Query.resolvedPackage': {
    app: { method: 'GET', path: `${packages}/:version/resolved` },
    api: { method: 'GET', path: `${packages}/:version/resolved` },
  },
  'Mutation.createPackage': { app: { method: 'POST', path: packages, responseStatus: 201 } },
};
