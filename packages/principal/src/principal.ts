// Who is calling: an admin user (JWT), a project API key, or nobody; resolvers read it from the context.
import type { EntityManager } from '@mikro-orm/postgresql';

export const RESOURCES = {
  organizations: ['read', 'update', 'delete'],
  projects: ['create', 'read', 'update', 'delete'],
  users: ['create', 'read', 'update', 'delete'],
  roles: ['create', 'read', 'update', 'delete'],
  apiKeys: ['create', 'read', 'update', 'delete'],
  components: ['create', 'read', 'update', 'delete'],
  packages: ['create', 'read', 'update', 'delete'],
  assets: ['create', 'read', 'update', 'delete'],
  contentTypes: ['create', 'read', 'update', 'publish', 'delete'],
  content: ['create', 'read', 'update', 'publish', 'delete'],
} as const;

export type Resource = keyof typeof RESOURCES;
export type Action<R extends Resource = Resource> = (typeof RESOURCES)[R][number];
/** A role's `permissions`: resource → flag → allowed (the spec's Role table). */
export type Permissions = { [R in Resource]?: { [A in Action<R>]?: boolean } };

export interface UserPrincipal {
  kind: 'user';
  userId: string;
  organizationId: string;
  permissions: Permissions;
  /** Set on tokens issued with a project scope: the token works for that project only. */
  projectId?: string;
  /** When the presented token expires (epoch ms): tokens it issues never outlive it. */
  tokenExpiresAt?: number;
}

/** What a key reads: the published state, or the working state (drafts and working copies) for previews. */
export type ApiKeyScope = 'published' | 'preview';

export interface ApiKeyPrincipal {
  kind: 'apiKey';
  keyId: string;
  organizationId: string;
  projectId: string;
  scope: ApiKeyScope;
}

export interface AnonymousPrincipal {
  kind: 'anonymous';
}

export type Principal = UserPrincipal | ApiKeyPrincipal | AnonymousPrincipal;

/**
 * Which state a caller reads, decided once per principal: `published` (API keys), `preview` (preview keys:
 * the working state, read-only, never cached) or `admin` (staff: everything, deleted included).
 */
export type Visibility = 'published' | 'preview' | 'admin';
/** What an API key reads. */
export type KeyVisibility = Exclude<Visibility, 'admin'>;

export function visibilityOf(principal: UserPrincipal | ApiKeyPrincipal): Visibility {
  if (principal.kind === 'user') return 'admin';
  return principal.scope === 'preview' ? 'preview' : 'published';
}

/** Whether an answer for this caller may be kept in, or served from, a shared cache: published keys only. */
export function sharedCacheable(principal: Principal | undefined): principal is ApiKeyPrincipal {
  return principal?.kind === 'apiKey' && principal.scope !== 'preview';
}

export const ANONYMOUS: AnonymousPrincipal = { kind: 'anonymous' };

/** Every flag of every resource set: the bootstrap `Owner` role. */
export function allPermissions(): Permissions {
  return Object.fromEntries(
    Object.entries(RESOURCES).map(([resource, actions]) => [
      resource,
      Object.fromEntries(actions.map((a) => [a, true])),
    ]),
  ) as Permissions;
}

/**
 * What a request presents, read once by `@cp/auth` from wherever its transport carries it (HTTP headers, graphql-ws
 * `connectionParams` or the upgrade request's headers).
 */
export interface Credentials {
  /** `Authorization: Bearer <jwt>`. */
  authorization?: string;
  /** `x-api-key`. */
  apiKey?: string;
  /** Our gateway's signed principal (`x-cp-principal`), taken only where the host accepts it (a subgraph service). */
  signed?: string;
  /** The request id the signed principal is bound to. */
  requestId?: string;
}

/** Who the caller is and how we know: `gateway` (a signed principal), `credentials` (checked here), `anonymous`. */
export interface Authenticated {
  principal: Principal;
  via: 'gateway' | 'credentials' | 'anonymous';
  /** `gateway` only: the `Idempotency-Key` our gateway claimed for this request (`PrincipalBinding.idempotencyKey`). */
  idempotencyKey?: string;
}

/**
 * Turns a request's credentials into its principal: what every host needs of authentication. `@cp/auth`'s
 * `Authentication` implements it; a host creates one per process and hands it to the modules (`BuildDeps.auth`).
 */
export interface Authenticator {
  /** An answer already in memory (a cached key, no credential) comes back at once, without a promise. */
  authenticate(em: EntityManager, credentials: Credentials): Authenticated | Promise<Authenticated>;
}
