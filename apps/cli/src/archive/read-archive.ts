// Opens an export (directory or .tar.gz) and checks all of it before anything is written: manifest, sizes, sha256 of every file, JSON.
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import * as tar from 'tar';
import { CliError, InvalidArchiveError } from '../errors';
import type { Progress } from '../progress';
import { hashFile, MANIFEST, manifestProblems, type Manifest } from './manifest';
import { isTarball } from './write-archive';

export interface OpenedArchive {
  dir: string;
  manifest: Manifest;
  /** Paths under `files/`, without that prefix (e.g. `assets/<id>`). */
  files: Set<string>;
  /** Parsed `data/<kind>.json` by kind. */
  data: Record<string, unknown>;
  close(): Promise<void>;
}

async function walk(dir: string, root = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full, root)));
    else out.push(relative(root, full).split(sep).join('/'));
  }
  return out;
}

/** Unpacks a .tar.gz into a temporary directory; only plain files and directories, nothing outside it. */
async function unpack(file: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cp-import-'));
  const refused: string[] = [];
  try {
    await tar.extract({
      file,
      cwd: dir,
      strict: true,
      preservePaths: false,
      filter: (path, entry) => {
        const type = (entry as { type?: string }).type;
        if (type !== 'File' && type !== 'Directory') {
          refused.push(`${path}: ${type} entries are not allowed`);
          return false;
        }
        return true;
      },
    });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw new InvalidArchiveError([`${file} is not a readable .tar.gz archive: ${(err as Error).message}`]);
  }
  if (refused.length) {
    await rm(dir, { recursive: true, force: true });
    throw new InvalidArchiveError(refused);
  }
  return dir;
}

/** Reads and verifies everything; throws InvalidArchiveError listing the problems, having written nothing. */
export async function openArchive(
  source: string,
  kinds: readonly string[],
  progress: Progress,
): Promise<OpenedArchive> {
  const full = resolve(source);
  const info = await lstat(full).catch(() => undefined);
  if (!info) throw new CliError(`${source} does not exist.`);
  const tarball = info.isFile();
  if (tarball && !isTarball(full)) progress.note(`${source} is a file: reading it as a .tar.gz`);
  const dir = tarball ? await unpack(full) : full;
  const close = async () => {
    if (tarball) await rm(dir, { recursive: true, force: true });
  };
  try {
    const manifestText = await readFile(join(dir, MANIFEST), 'utf8').catch(() => undefined);
    if (manifestText === undefined) throw new InvalidArchiveError([`${MANIFEST} is missing`]);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(manifestText) as Manifest;
    } catch (err) {
      throw new InvalidArchiveError([`${MANIFEST} is not valid JSON: ${(err as Error).message}`]);
    }
    const shape = manifestProblems(manifest);
    if (shape.length) throw new InvalidArchiveError(shape);

    const problems: string[] = [];
    const present = new Set((await walk(dir)).filter((p) => p !== MANIFEST));
    for (const path of present) if (!(path in manifest.files)) problems.push(`${path}: not listed in ${MANIFEST}`);
    const listed = Object.entries(manifest.files);
    progress.step('verify checksums', listed.length);
    for (const [path, expected] of listed) {
      if (!present.has(path)) problems.push(`${path}: listed in ${MANIFEST} but missing`);
      else {
        const actual = await hashFile(join(dir, path));
        if (actual.size !== expected.size)
          problems.push(`${path}: size ${actual.size} bytes, the manifest says ${expected.size}`);
        else if (actual.sha256 !== expected.sha256)
          problems.push(`${path}: sha256 mismatch (the file was changed or damaged)`);
      }
      progress.tick();
    }
    progress.end();
    const data: Record<string, unknown> = {};
    for (const kind of kinds) {
      const path = `data/${kind}.json`;
      if (!(path in manifest.files)) {
        problems.push(`${path}: missing`);
        continue;
      }
      if (!present.has(path)) continue;
      try {
        data[kind] = JSON.parse(await readFile(join(dir, path), 'utf8'));
      } catch (err) {
        problems.push(`${path}: not valid JSON: ${(err as Error).message}`);
      }
    }
    if (problems.length) throw new InvalidArchiveError(problems);
    const files = new Set([...present].filter((p) => p.startsWith('files/')).map((p) => p.slice('files/'.length)));
    return { dir, manifest, files, data, close };
  } catch (err) {
    await close();
    throw err;
  }
}
