// REST routes of the content subgraph on the spec's paths (admin `/app/v1`, client `/api/v1`).
import { PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const types = `${PROJECT_PATH}/content-types`;
const webhooks = `${PROJECT_PATH}/webhooks`;
const content = `${PROJECT_PATH}/content`;
const schedules = `${PROJECT_PATH}/schedules`;
const releases = `${PROJECT_PATH}/releases`;

/** List, get, create, update and delete routes of a named resource; `client` adds list and get under /api/v1. */
function crud(segment: string, singular: string, plural: string, client: boolean): RestRoutes {
  const base = `${PROJECT_PATH}/${segment}`;
  const field = singular[0].toLowerCase() + singular.slice(1);
  const list = plural[0].toLowerCase() + plural.slice(1);
  return {
    [`Query.${list}`]: {
      app: { method: 'GET', path: base },
      ...(client ? { api: { method: 'GET', path: base } } : {}),
    },
    [`Query.${field}`]: {
      app: { method: 'GET', path: `${base}/:id` },
      ...(client ? { api: { method: 'GET', path: `${base}/:id` } } : {}),
    },
    [`Mutation.create${singular}`]: { app: { method: 'POST', path: base, responseStatus: 201 } },
    [`Mutation.update${singular}`]: { app: { method: 'PUT', path: `${base}/:id` } },
    [`Mutation.delete${singular}`]: { app: { method: 'DELETE', path: `${base}/:id` } },
  };
}

/** A POST to …/content without typeId, name or content is a search. */
/**
 * A body with none of `typeId`, `name`, `content` and at least one search member (or `{}`) is a search. We count
 * `search`, `query` (full-text and semantic, as saved searches hold them) and `select` as search members too; any other body is
 * a creation, so `{"foo": 1}` is refused as one (422) instead of running as a search.
 */
const SEARCH_MEMBERS = ['filter', 'sort', 'page', 'limit', 'search', 'query', 'select'];
const isSearchBody = (body: Record<string, unknown> | undefined) =>
  !body ||
  (!('typeId' in body) &&
    !('name' in body) &&
    !('content' in body) &&
    (Object.keys(body).length === 0 || SEARCH_MEMBERS.some((member) => member in body)));
const post = (path: string) => ({ app: { method: 'POST' as const, path } });
/**
 * Content lists leave out each entry's `compiled` module: the spec returns it on create and migrate, it is half a
 * list page's bytes, and a client renders one entry from `…/content/:id/resolved`.
 */
const omit = ['data.compiled'];

export const contentRoutes: RestRoutes = {
  'Query.contentTypes': { app: { method: 'GET', path: types }, api: { method: 'GET', path: types } },
  'Query.contentType': { app: { method: 'GET', path: `${types}/:id` }, api: { method: 'GET', path: `${types}/:id` } },
  'Mutation.createContentType': { app: { method: 'POST', path: types, responseStatus: 201 } },
  'Mutation.updateContentType': { app: { method: 'PUT', path: `${types}/:id` } },
  'Query.contentTypeVersions': {
    app: { method: 'GET', path: `${types}/:id/versions` },
    api: { method: 'GET', path: `${types}/:id/versions` },
  },
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
  'Query.contents': { app: { method: 'GET', path: content, omit }, api: { method: 'GET', path: content, omit } },
  'Mutation.createContent': { app: { method: 'POST', path: content, responseStatus: 201 } },
  'Query.searchContent': {
    app: { method: 'POST', path: `${content}/search`, alias: { path: content, when: isSearchBody }, omit },
    api: { method: 'POST', path: `${content}/search`, omit },
  },
  'Query.content': { app: { method: 'GET', path: `${content}/:id` } },
  'Query.resolvedContent': {
    app: { method: 'GET', path: `${content}/:id/resolved` },
    api: { method: 'GET', path: `${content}/:id/resolved` },
  },
  'Query.contentVersions': { app: { method: 'GET', path: `${content}/:id/versions` } },
  'Query.contentReferencedBy': {
    app: { method: 'GET', path: `${content}/:id/referenced-by`, omit },
    api: { method: 'GET', path: `${content}/:id/referenced-by`, omit },
  },
  'Mutation.updateContent': { app: { method: 'PUT', path: `${content}/:id` } },
  'Mutation.deleteContent': { app: { method: 'DELETE', path: `${content}/:id` } },
  'Mutation.publishContent': post(`${content}/:id/publish`),
  'Mutation.unpublishContent': post(`${content}/:id/unpublish`),
  'Mutation.discardContent': post(`${content}/:id/discard`),
  'Mutation.rollbackContent': post(`${content}/:id/rollback`),
  'Mutation.restoreContent': post(`${content}/:id/restore`),
  'Mutation.migrateContent': post(`${content}/:id/migrate`),
  'Mutation.bulkContent': post(`${content}/bulk`),
  ...crud('tags', 'Tag', 'Tags', true),
  ...crud('folders', 'Folder', 'Folders', false),
  ...crud('saved-searches', 'SavedSearch', 'SavedSearches', true),
  'Query.schedules': { app: { method: 'GET', path: schedules } },
  'Query.schedule': { app: { method: 'GET', path: `${schedules}/:id` } },
  'Mutation.createSchedule': { app: { method: 'POST', path: schedules, responseStatus: 201 } },
  'Mutation.cancelSchedule': { app: { method: 'DELETE', path: `${schedules}/:id` } },
  'Query.releases': { app: { method: 'GET', path: releases } },
  'Query.release': { app: { method: 'GET', path: `${releases}/:id` } },
  'Mutation.createRelease': { app: { method: 'POST', path: releases, responseStatus: 201 } },
  'Mutation.updateRelease': { app: { method: 'PUT', path: `${releases}/:id` } },
  'Mutation.deleteRelease': { app: { method: 'DELETE', path: `${releases}/:id` } },
  'Mutation.validateRelease': post(`${releases}/:id/validate`),
  'Mutation.publishRelease': post(`${releases}/:id/publish`),
  'Query.executeSavedSearch': {
    app: { method: 'POST', path: `${PROJECT_PATH}/saved-searches/:id/execute`, omit },
    api: { method: 'POST', path: `${PROJECT_PATH}/saved-searches/:id/execute`, omit },
  },
  'Query.sync': { api: { method: 'GET', path: `${PROJECT_PATH}/sync`, omit: ['items.compiled'] } },
};
