// Public surface of the access subgraph for the gateway and the standalone service.
export { accessDatabase, buildAccessSubgraph, createAuthService } from './subgraph';
export { accessRoutes } from './routes';
export { bootstrap, DEFAULT_ID } from './bootstrap';
export { AuthService, type AuthHeaders } from './auth/auth.service';
