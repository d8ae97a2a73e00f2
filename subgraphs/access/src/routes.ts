// REST routes of the access subgraph: sign-in, organizations, projects, users, roles, API keys.
import { ORG_PATH, PROJECT_PATH, type RestRoutes } from '@cp/graphql';

const keys = `${PROJECT_PATH}/api-keys`;

export const accessRoutes: RestRoutes = {
  'Mutation.login': { app: { method: 'POST', path: '/auth/login', public: true } },
  'Mutation.issueToken': { app: { method: 'POST', path: '/auth/tokens', responseStatus: 201 } },
  'Query.me': { app: { method: 'GET', path: '/auth/me' } },
  'Query.organizations': { app: { method: 'GET', path: '/organizations' } },
  'Query.organization': { app: { method: 'GET', path: '/organizations/:id' } },
  'Mutation.updateOrganization': { app: { method: 'PUT', path: '/organizations/:id' } },
  'Mutation.deleteOrganization': { app: { method: 'DELETE', path: '/organizations/:id' } },
  'Query.projects': { app: { method: 'GET', path: `${ORG_PATH}/projects` } },
  'Query.project': { app: { method: 'GET', path: `${ORG_PATH}/projects/:id` } },
  'Mutation.createProject': { app: { method: 'POST', path: `${ORG_PATH}/projects`, responseStatus: 201 } },
  'Mutation.updateProject': { app: { method: 'PUT', path: `${ORG_PATH}/projects/:id` } },
  'Mutation.deleteProject': { app: { method: 'DELETE', path: `${ORG_PATH}/projects/:id` } },
  'Query.users': { app: { method: 'GET', path: `${ORG_PATH}/users` } },
  'Query.user': { app: { method: 'GET', path: `${ORG_PATH}/users/:id` } },
  'Mutation.createUser': { app: { method: 'POST', path: `${ORG_PATH}/users`, responseStatus: 201 } },
  'Mutation.updateUser': { app: { method: 'PUT', path: `${ORG_PATH}/users/:id` } },
  'Mutation.deleteUser': { app: { method: 'DELETE', path: `${ORG_PATH}/users/:id` } },
  'Query.roles': { app: { method: 'GET', path: `${ORG_PATH}/roles` } },
  'Query.role': { app: { method: 'GET', path: `${ORG_PATH}/roles/:id` } },
  'Mutation.createRole': { app: { method: 'POST', path: `${ORG_PATH}/roles`, responseStatus: 201 } },
  'Mutation.updateRole': { app: { method: 'PUT', path: `${ORG_PATH}/roles/:id` } },
  'Mutation.deleteRole': { app: { method: 'DELETE', path: `${ORG_PATH}/roles/:id` } },
  'Query.apiKeys': { app: { method: 'GET', path: keys } },
  'Query.apiKey': { app: { method: 'GET', path: `${keys}/:id` } },
  'Mutation.createApiKey': { app: { method: 'POST', path: keys, responseStatus: 201 } },
  'Mutation.revokeApiKey': { app: { method: 'POST', path: `${keys}/:id/revoke` } },
};
