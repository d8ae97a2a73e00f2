// How a subgraph exposes its root fields as REST routes (sofa `routes`), per route family.
import type { ApiFamily } from '@cp/principal';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestRoute {
  method: HttpMethod;
  /** Relative to the family's base path; `:name` segments map to the field's arguments by name. */
  path: string;
  /** 201 for creations; 200 otherwise. */
  responseStatus?: number;
  /** A second public path shared with another route, taken when `when(body)` holds (POST …/content as a search). */
  alias?: { path: string; when(body: Record<string, unknown> | undefined): boolean };
  /**
   * `fieldMap`: a body that fails validation is 400 `BAD_REQUEST` with `details` mapping each member to a message
   * instead of 422 with `details.errors[]` (the one exception: component creation).
   */
  bodyErrors?: 'fieldMap';
  /**
   * Selections REST leaves out of the field's result, as dotted paths under it (`data.compiled`): what a route doesn't
   * return, the resolver doesn't read. GraphQL callers still select them as they like.
   */
  omit?: readonly string[];
  /** Anyone may call the field's routes without a credential (sign-in). */
  public?: boolean;
}

/**
 * How sofa shapes a module's types in REST answers: `models` are types REST sends as references (`createdBy` as the
 * user's id), `ignore` the `Type.field`s where such a type is the value itself, not a reference.
 */
export interface RestShape {
  models?: readonly string[];
  ignore?: readonly string[];
  /**
   * `Type.field`s that only GraphQL answers: REST operations are derived from a schema without them, so no route
   * selects (and pays for) them, and the OpenAPI document doesn't show them.
   */
  graphqlOnly?: readonly string[];
}

/** `Query.field` / `Mutation.field` → its route under `/app/v1` (admin) and/or `/api/v1` (client). */
export type RestRoutes = Record<string, Partial<Record<ApiFamily, RestRoute>>>;

/** Every module's routes and shapes together: what REST and its OpenAPI documents are derived from. */
export interface RestApi {
  routes: RestRoutes;
  shape: RestShape;
}

export const ORG_PATH = '/organizations/:organizationId';
export const PROJECT_PATH = `${ORG_PATH}/projects/:projectId`;
