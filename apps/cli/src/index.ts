// Programmatic surface of the CLI for tests: export and import without spawning a process.
export { exportProject } from './commands/export';
export { importProject } from './commands/import';
