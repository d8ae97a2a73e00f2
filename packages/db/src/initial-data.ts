// The embedded database's initial data: an empty, migrated data directory built with the service, so a first start
// unpacks it and opens it like an existing one instead of creating the cluster (initdb) and running every migration.
import type { MigrationObject } from '@mikro-orm/core';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, Stats, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as tar from 'tar';

const run = promisify(execFile);

/** One migration the initial data holds: its name and a hash of its code. */
interface MigrationPrint {
  name: string;
  hash: string;
}

/** What sits beside the tarball (`<file>.json`): the migrations it was built from. */
interface Manifest {
  migrations: MigrationPrint[];
}

/** Name and code of each migration: a migration edited after the build no longer matches its print. */
function migrationPrints(migrations: MigrationObject[]): MigrationPrint[] {
  return migrations.map(({ name, class: type }) => ({
    name,
    hash: createHash('sha256').update(String(type)).digest('base64url'),
  }));
}

const manifestPath = (file: string) => `${file}.json`;

/**
 * Whether the initial data at `file` fits `migrations`: every migration it holds is one of them, unchanged (the
 * caller runs the ones it lacks). Otherwise the reason: no file, or a migration renamed or edited since the build.
 */
export function checkInitialData(file: string, migrations: MigrationObject[]): { reason?: string } {
  if (!existsSync(file) || !existsSync(manifestPath(file))) return { reason: `no initial data at ${file}` };
  const manifest = JSON.parse(readFileSync(manifestPath(file), 'utf8')) as Manifest;
  const current = new Map(migrationPrints(migrations).map((m) => [m.name, m.hash]));
  const changed = manifest.migrations.find((m) => current.get(m.name) !== m.hash);
  return changed ? { reason: `migration ${changed.name} differs from the one the initial data was built with` } : {};
}

/** Packs `pgdata` (a stopped database built by running `migrations`) into `file`, with its manifest. */
export async function packInitialData(pgdata: string, file: string, migrations: MigrationObject[]): Promise<void> {
  // Files and directories only: the socket of the server that built it stays behind.
  const filesAndDirectories = (_path: string, entry: unknown) =>
    !(entry instanceof Stats) || entry.isFile() || entry.isDirectory();
  await tar.create({ file, gzip: true, cwd: pgdata, portable: true, filter: filesAndDirectories }, ['.']);
  const manifest: Manifest = { migrations: migrationPrints(migrations) };
  writeFileSync(manifestPath(file), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Extracts the tarball argv[1] into the directory argv[2]; run with `node -e`, so `tar` resolves from the cwd. */
const EXTRACT = `require('tar').extract({ file: process.argv[1], cwd: process.argv[2], strict: true, sync: true })`;

/**
 * Unpacks `file` as the data directory `pgdata`, which holds no database. It is unpacked beside it and renamed into
 * place, so a start killed halfway leaves no half a database that the next start would take for a whole one.
 */
export async function unpackInitialData(file: string, pgdata: string): Promise<void> {
  const partial = `${pgdata}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  // In a child process: 40 MB through this process's buffers left about as much in its malloc heap for good, which
  // is most of what the first start idled above later ones.
  await run(process.execPath, ['-e', EXTRACT, file, partial], { cwd: __dirname });
  rmSync(pgdata, { recursive: true, force: true });
  renameSync(partial, pgdata);
}
