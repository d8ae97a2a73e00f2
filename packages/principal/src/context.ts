// The per-request context every subgraph resolver receives, in-process or behind HTTP.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProjectLocale } from './locales';
import type { Principal } from './principal';

export interface ProjectDirectory {
  /** True when the project exists, is not deleted, and belongs to the organization. */
  exists(organizationId: string, projectId: string): Promise<boolean>;
  /** The project's locales (its default when it never set them); undefined when the project doesn't exist. */
  locales(organizationId: string, projectId: string): Promise<readonly ProjectLocale[] | undefined>;
}

export interface Context {
  /** A forked entity manager: one per request, never shared (MikroORM identity map). */
  em: EntityManager;
  principal: Principal;
  requestId: string;
  lang: string;
  projects: ProjectDirectory;
  /** `resource.action` flags the request was authorized by (authorize.ts): an idempotent replay re-checks them. */
  granted?: Set<string>;
}
