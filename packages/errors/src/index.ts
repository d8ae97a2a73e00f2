// Shared error vocabulary: typed error classes, the code → status catalogue, the REST envelope, translations.
export * from './catalogue';
export * from './app-error';
export * from './envelope';
export * from './translations';
export * from './format-graphql-error';
export * from './input-error';
export * from './unavailable-error';
export * from './resource-exhaustion';
export * from './openapi';
