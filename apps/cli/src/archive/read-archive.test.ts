// Archive verification: every kind of corruption is refused before anything is written, with a message naming the file.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArchiveError } from '../errors';
import { createProgress } from '../progress';
import { openArchive } from './read-archive';
import { FORMAT, FORMAT_VERSION, safeRelativePath } from './manifest';

const quiet = createProgress(process.stderr, true);
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function archive(files: Record<string, string>, manifestFiles?: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cp-archive-test-'));
  dirs.push(dir);
  const listed: Record<string, unknown> = {};
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
    listed[path] = { sha256: createHash('sha256').update(text).digest('hex'), size: Buffer.byteLength(text) };
  }
  const manifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    exportedAt: new Date().toISOString(),
    source: { organizationId: 'o', projectId: 'p' },
    counts: {},
    files: manifestFiles ?? listed,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

async function refusal(source: string, kinds = ['tags']): Promise<string> {
  const err = await openArchive(source, kinds, quiet).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidArchiveError);
  return (err as Error).message;
}

describe('openArchive', () => {
  it('reads a well-formed archive', async () => {
    const opened = await openArchive(
      archive({ 'data/tags.json': '[{"id":"t1","name":"a"}]', 'files/assets/x': 'bytes' }),
      ['tags'],
      quiet,
    );
    expect(opened.data.tags).toEqual([{ id: 't1', name: 'a' }]);
    expect([...opened.files]).toEqual(['assets/x']);
  });

  it('refuses a changed file, a missing file, an unlisted file, a missing kind and bad JSON', async () => {
    const changed = archive({ 'data/tags.json': '[]' });
    writeFileSync(join(changed, 'data/tags.json'), '{}');
    expect(await refusal(changed)).toContain('data/tags.json: sha256 mismatch');

    const extra = archive({ 'data/tags.json': '[]' });
    writeFileSync(join(extra, 'data/evil.json'), '[]');
    expect(await refusal(extra)).toContain('data/evil.json: not listed in manifest.json');

    const missing = archive({ 'data/tags.json': '[]' });
    rmSync(join(missing, 'data/tags.json'));
    expect(await refusal(missing)).toContain('data/tags.json: listed in manifest.json but missing');

    expect(await refusal(archive({ 'data/tags.json': '[]' }), ['tags', 'folders'])).toContain(
      'data/folders.json: missing',
    );
    expect(await refusal(archive({ 'data/tags.json': '[' }))).toContain('data/tags.json: not valid JSON');
  });

  it('refuses manifests that are missing, malformed, of another format, or with unsafe paths', async () => {
    const none = archive({});
    rmSync(join(none, 'manifest.json'));
    expect(await refusal(none)).toContain('manifest.json is missing');
    const garbled = archive({});
    writeFileSync(join(garbled, 'manifest.json'), '{');
    expect(await refusal(garbled)).toContain('manifest.json is not valid JSON');
    expect(await refusal(archive({}, { '../etc/passwd': { sha256: 'a'.repeat(64), size: 1 } }))).toContain(
      'is not a plain relative path',
    );
    expect(safeRelativePath('files/assets/abc')).toBe(true);
    expect(safeRelativePath('files/../x')).toBe(false);
    expect(safeRelativePath('/abs')).toBe(false);
  });

  it('refuses a file that is not gzip and a tarball holding a symbolic link', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-archive-test-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'bad.tar.gz'), 'not gzip at all');
    expect(await refusal(join(dir, 'bad.tar.gz'))).toContain('is not a readable .tar.gz archive');

    const src = archive({ 'data/tags.json': '[]' });
    symlinkSync('/etc/passwd', join(src, 'data/link'));
    await tar.create({ gzip: true, cwd: src, file: join(dir, 'link.tar.gz') }, ['manifest.json', 'data']);
    expect(await refusal(join(dir, 'link.tar.gz'))).toContain('SymbolicLink entries are not allowed');
  });
});
