// REST routes of the content subgraph on the spec's paths (admin `/app/v1`, client `/api/v1`).
import { PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const types = `${PROJECT_PATH}/content-types`;
const webhooks = `${PROJECT_PATH}/webhooks`;
const post = (path: string) => ({ app: { method: 'POST' as const, path } });

export const contentRoutes: RestRoutes = {
  'Query.contentTypes': { app: { method: 'GET', path: types }, api: { method: 'GET', path: types } },
  'Query.contentType': { app: { method: 'GET', path: `${types}/:id` }, api: { method: 'GET', path: `${types}/:id` } },
  'Mutation.createContentType': { app: { method: 'POST', path: types, responseStatus: 201 } },
  'Mutation.updateContentType': { app: { method: 'PUT', path: `${types}/:id` } },
  'Query.contentTypeVersions': { app: { method: 'GET', path: `${types}/:id/versions` }, api: { method: 'GET', path: `${types}/:id/versions` } },
  'Mutation.publishContentType': post(`${types}/:id/publish`),
  'Mutation.unpublishContentType': post(`${types}/:id/unpublish`),
  'Mutation.discardContentType': post(`${types}/:id/discard`),
  'Mutation.rollbackContentType': post(`${types}/:id/rollback`),
  'Mutation.restoreContentType': post(`${types}/:id/restore`),
  'Mutation.deleteContentType': { app: { method: 'DELETE', path: `${types}/:id` } },
  'Mutation.setContentTypeStatus': { app: { method: 'PATCH', path: `${types}/:id/status` } },
  'Query.webhooks': { app: { method: 'GET', path: webhooks } },
  'Query.webhook': { app: { method: 'GET', path: `${webhooks}/:id` } },
  'Query.webhookDeliveries': { app: { method: 'GET', path: `${webhooks}/:id/deliveries` } },
  'Mutation.createWebhook': { app: { method: 'POST', path: webhooks, responseStatus: 201 } },
  'Mutation.updateWebhook': { app: { method: 'PUT', path: `${webhooks}/:id` } },
  'Mutation.deleteWebhook': { app: { method: 'DELETE', path: `${webhooks}/:id` } },
  'Mutation.redeliverWebhook': { app: { method: 'POST', path: `${webhooks}/:id/deliveries/:deliveryId/redeliver` } },
};
