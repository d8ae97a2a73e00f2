// Bundling of published content into ES modules that clients import.
export * from './content-module';
