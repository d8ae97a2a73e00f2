// Public surface of the access subgraph for the gateway and the standalone service.
export { accessDatabase, accessModule, buildAccessSubgraph } from './subgraph';
export { accessRoutes } from './routes';
export { bootstrap, DEFAULT_ID } from './bootstrap';
export { AuthService } from './auth/auth.service';
export { ApiKeyService } from './api-key/api-key.service';
export { UserService } from './user/user.service';
export { Organization } from './organization/organization.entity';
export { createOrganization, type NewOrganization } from './organization/create-organization';
export { Project } from './project/project.entity';
export { Role, OWNER_ROLE } from './role/role.entity';
export { User } from './user/user.entity';
