// Writes an export: a directory (manifest.json, data/<kind>.json, files/…) or the same packed as a .tar.gz.
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { CliError } from '../errors';
import { FORMAT, FORMAT_VERSION, hashFile, MANIFEST, type FileEntry, type Manifest } from './manifest';

export const isTarball = (path: string) => /\.(tar\.gz|tgz)$/i.test(path);

/** Collects an archive in a directory; `finish` writes the manifest and packs it when the target is a .tar.gz. */
export class ArchiveWriter {
  private readonly files: Record<string, FileEntry> = {};

  private constructor(
    readonly target: string,
    private readonly dir: string,
  ) {}

  static async open(target: string): Promise<ArchiveWriter> {
    const full = resolve(target);
    if (isTarball(full)) return new ArchiveWriter(full, await mkdtemp(join(tmpdir(), 'cp-export-')));
    const existing = await readdir(full).catch(() => undefined);
    if (existing && existing.length > 0)
      throw new CliError(`${target} exists and is not empty; export into a new directory or a .tar.gz file.`);
    await mkdir(full, { recursive: true });
    return new ArchiveWriter(full, full);
  }

  async json(path: string, value: unknown): Promise<void> {
    await mkdir(dirname(join(this.dir, path)), { recursive: true });
    await writeFile(join(this.dir, path), JSON.stringify(value));
    this.files[path] = await hashFile(join(this.dir, path));
  }

  async stream(path: string, body: Readable): Promise<void> {
    await mkdir(dirname(join(this.dir, path)), { recursive: true });
    await pipeline(body, createWriteStream(join(this.dir, path)));
    this.files[path] = await hashFile(join(this.dir, path));
  }

  async finish(source: Manifest['source'], counts: Record<string, number>): Promise<{ path: string; bytes: number }> {
    const manifest: Manifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      exportedAt: new Date().toISOString(),
      source,
      counts,
      files: this.files,
    };
    await writeFile(join(this.dir, MANIFEST), JSON.stringify(manifest, null, 2));
    if (this.dir === this.target) {
      const bytes = Object.values(this.files).reduce((n, f) => n + f.size, 0);
      return { path: this.target, bytes };
    }
    try {
      await mkdir(dirname(this.target), { recursive: true });
      await tar.create({ gzip: true, cwd: this.dir, file: this.target, portable: true }, [
        MANIFEST,
        ...Object.keys(this.files),
      ]);
      return { path: this.target, bytes: (await stat(this.target)).size };
    } finally {
      await rm(this.dir, { recursive: true, force: true });
    }
  }

  /** Removes what a failed export left behind. */
  async abort(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
