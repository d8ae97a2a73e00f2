// REST routes of the access subgraph (D5): sign-in, organizations, projects, users, roles.
import { ORG_PATH, type RestRoutes } from '@cp/graphql';

export const accessRoutes: RestRoutes = {
  'Mutation.login': { app: { method: 'POST', path: '/auth/login' } },
  'Query.me': { app: { method: 'GET', path: '/auth/me' } },
  'Query.organizations': { app: { method: 'GET', path: '/organizations' } },
  'Query.organization': { app: { method: 'GET', path: '/organizations/:id' } },
  'Query.projects': { app: { method: 'GET', path: `${ORG_PATH}/projects` } },
  'Query.project': { app: { method: 'GET', path: `${ORG_PATH}/projects/:id` } },
  'Mutation.createProject': { app: { method: 'POST', path: `${ORG_PATH}/projects`, responseStatus: 201 } },
  'Query.users': { app: { method: 'GET', path: `${ORG_PATH}/users` } },
  'Query.user': { app: { method: 'GET', path: `${ORG_PATH}/users/:id` } },
  'Query.roles': { app: { method: 'GET', path: `${ORG_PATH}/roles` } },
  'Query.role': { app: { method: 'GET', path: `${ORG_PATH}/roles/:id` } },
};
