// Black-box: a full disk refuses an upload with 507 INSUFFICIENT_STORAGE (not an opaque 500) and keeps nothing; space freed, uploads work again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

/** DATA_DIR on a 1 MiB tmpfs: real ENOSPC from the kernel (CI runs as root, which may mount). */
const dataDir = mkdtempSync(join(tmpdir(), 'cp-disk-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dataDir], { stdio: 'ignore' });
  mounted = true;
} catch {
  // not allowed to mount here: the test below says so instead of passing
}

const files = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => d.name)
    : [];

describe('a full disk', () => {
  let service: TestService;
  let api: Client;
  let token: string;
  beforeAll(async () => {
    if (!mounted) return;
    service = await startService({ dataDir });
    api = new Client(service.url);
    token = await api.login();
  }, 180_000);
  afterAll(async () => {
    await service?.destroy();
    if (mounted) execFileSync('umount', [dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers an upload that does not fit with 507 INSUFFICIENT_STORAGE, keeps no bytes and no row, then accepts one that fits', async () => {
    expect(mounted, 'mounting a 1 MiB tmpfs needs root (as in CI)').toBe(true);
    const upload = async (bytes: Buffer, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), name);
      const res = await fetch(`${service.url}/app/v1${PROJECT}/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      return { status: res.status, body: await res.json() };
    };
    for (let round = 0; round < 3; round++) {
      const refused = await upload(Buffer.alloc(3 * 1024 * 1024, round), `big-${round}.bin`);
      expect(refused).toMatchObject({ status: 507, body: { error: { code: 'INSUFFICIENT_STORAGE' } } });
      expect(files(join(dataDir, 'assets'))).toEqual([]);
    }
    const pg = new Pg({ connectionString: service.databaseUrl });
    await pg.connect();
    try {
      expect(Number((await pg.query('select count(*) as n from asset')).rows[0].n)).toBe(0);
    } finally {
      await pg.end();
    }
    const fits = await upload(Buffer.from('small enough\n'), 'small.txt');
    expect(fits.status, JSON.stringify(fits.body)).toBe(201);
    expect(files(join(dataDir, 'assets'))).toEqual([fits.body.id]);
  }, 180_000);
});
