// What a subgraph builds on, in one import: the schema builder, REST route types, lifecycle mutations, GraphQL limits;
// and, re-exported from the layers below, the caller (@cp/principal) and the statuses, list pages and revision checks
// of its tables (@cp/db).
export * from '@cp/principal';
export {
  CursorArgs,
  CursorList,
  CursorPagination,
  decodeCursor,
  DEFAULT_LIMIT,
  encodeCursor,
  EntityStatus,
  ExpectedRevisionArgs,
  keysetPage,
  MAX_LIMIT,
  OffsetArgs,
  OffsetList,
  OffsetPagination,
  offsetPage,
  parseLimit,
  parseOffsetArgs,
  PREVIEW_STATUSES,
  VersionList,
  type CursorPosition,
  type KeysetOptions,
  type ListPage,
} from '@cp/db';
export * from './build-subgraph';
export * from './project-scope-args';
export * from './scalars';
export * from './rest-routes';
export * from './request-loader';
export * from './user-reference';
export * from './lifecycle';
export * from './lifecycle-mutations';
export * from './version-fields';
export * from './names';
export * from './selection';
export * from './event-since';
export * from './limits';
