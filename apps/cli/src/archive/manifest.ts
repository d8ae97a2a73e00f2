// The archive's manifest: what it holds, where it came from, and a sha256 and size for every file.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export const FORMAT = 'content-platform-project';
export const FORMAT_VERSION = 1;
export const MANIFEST = 'manifest.json';

export interface FileEntry {
  sha256: string;
  size: number;
}

export interface Manifest {
  format: typeof FORMAT;
  formatVersion: number;
  exportedAt: string;
  source: { organizationId: string; projectId: string };
  /** Rows per kind (`data/<kind>.json`). */
  counts: Record<string, number>;
  /** Every other file of the archive by relative path (`data/…`, `files/…`). */
  files: Record<string, FileEntry>;
}

export async function hashFile(path: string): Promise<FileEntry> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Shape problems of a parsed manifest (empty when it is well formed). */
export function manifestProblems(value: unknown): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${MANIFEST}: must be a JSON object`];
  const m = value as Partial<Manifest>;
  const problems: string[] = [];
  if (m.format !== FORMAT)
    problems.push(`${MANIFEST}: format must be "${FORMAT}" (is this a content-platform export?)`);
  if (m.formatVersion !== FORMAT_VERSION)
    problems.push(
      `${MANIFEST}: formatVersion ${String(m.formatVersion)} is not supported (this version reads ${FORMAT_VERSION})`,
    );
  if (!m.source || typeof m.source.organizationId !== 'string' || typeof m.source.projectId !== 'string')
    problems.push(`${MANIFEST}: source must name organizationId and projectId`);
  if (!m.files || typeof m.files !== 'object' || Array.isArray(m.files))
    return [...problems, `${MANIFEST}: files must be an object`];
  for (const [path, entry] of Object.entries(m.files)) {
    if (!safeRelativePath(path))
      problems.push(`${MANIFEST}: file path ${JSON.stringify(path)} is not a plain relative path`);
    if (
      !entry ||
      typeof entry.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(entry.sha256) ||
      !Number.isInteger(entry.size) ||
      entry.size < 0
    ) {
      problems.push(`${MANIFEST}: file ${path} needs a sha256 (64 hex characters) and a size`);
    }
  }
  return problems;
}

/** `data/x.json`, `files/assets/<id>`: no absolute paths, no `..`, no empty segments. */
export function safeRelativePath(path: string): boolean {
  return (
    /^(data|files)\/[A-Za-z0-9._\-/]+$/.test(path) && !path.split('/').some((s) => s === '' || s === '.' || s === '..')
  );
}
