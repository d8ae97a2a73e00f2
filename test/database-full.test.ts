// Black-box: the embedded database and the asset store on a full disk (a real tmpfs filled up): writes answer 507
// INSUFFICIENT_STORAGE (not 500), reads keep working, `/ready` says the database is full, an image variant is 507 like
// an upload; once space is freed, writes work again without a restart and nothing acknowledged is lost. The same for
// an external PostgreSQL whose tablespace is on a full disk.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as Pg } from 'pg';
import { Client, PROJECT } from './support/client';
import { startPostgres, type FaultServer } from './support/fault-servers';
import { startService, type TestService } from './support/service';
import { waitFor } from './support/wait';

/** A tmpfs of its own at a new directory: real ENOSPC from the kernel (CI runs as root, which may mount). */
function tmpfs(prefix: string, size: string): { dir: string; mounted: boolean } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return { dir, mounted: true };
  } catch {
    // not allowed to mount here: the tests say so instead of passing
    return { dir, mounted: false };
  }
}
function unmount({ dir, mounted }: { dir: string; mounted: boolean }) {
  if (mounted) execFileSync('umount', ['-l', dir]);
  if (dir) rmSync(dir, { recursive: true, force: true });
}
/** Fills what is left of the disk under `dir` (dd stops at ENOSPC, exiting non-zero). */
function fill(dir: string) {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=1M'], { stdio: 'ignore' });
  } catch {
    // the disk is full: what dd was for
  }
}

/** `/ready` is degraded for this long after the last refusal (packages/db/src/exhaustion-watch.ts), plus slack. */
const HEALS_WITHIN_MS = 5000 + 5000;

const app = `/app/v1${PROJECT}`;

describe('the embedded database on a full disk', () => {
  /** DATA_DIR (PGlite's files and the assets) on a tmpfs; mounted only when this suite runs, always unmounted. */
  let disk = { dir: '', mounted: false };
  let dataDir = '';
  let mounted = false;
  let filler = '';
  let service: TestService;
  let api: Client;
  let token: string;
  let typeId: string;
  let imageUrl: string;
  beforeAll(async () => {
    disk = tmpfs('cp-database-full-', '160m');
    ({ dir: dataDir, mounted } = disk);
    filler = join(dataDir, 'filler');
    if (!mounted) return;
    service = await startService({ database: 'pglite', dataDir, env: { EMBEDDINGS: 'off' }, startTimeoutMs: 180_000 });
    api = new Client(service.url);
    token = await api.login();
    const type = await api.call('POST', `${app}/content-types`, {
      token,
      body: { name: 'Note', schema: { type: 'object', properties: { title: { type: 'string' } } } },
    });
    typeId = type.body.id;
    expect((await api.call('POST', `${app}/content-types/${typeId}/publish`, { token })).status).toBe(200);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)]), 'blue.png');
    const uploaded = await fetch(`${service.url}${app}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    imageUrl = (await uploaded.json()).url;
  }, 240_000);
  afterAll(async () => {
    await service?.destroy();
    unmount(disk);
  });

  const create = (name: string) =>
    api.call('POST', `${app}/content`, { token, body: { typeId, name, content: { title: name.repeat(50) } } });

  const kept: string[] = [];
  it('answers writes 507 INSUFFICIENT_STORAGE while full, serves reads and says so on /ready', async () => {
    expect(mounted, 'mounting a tmpfs needs root (as in CI)').toBe(true);
    for (let i = 0; i < 3; i++) {
      const res = await create(`before-${i}`);
      expect(res.status).toBe(201);
      kept.push(res.body.id);
    }
    expect((await api.call('GET', '/ready')).body).toEqual({ status: 'ready' });

    fill(dataDir);
    expect(statfsSync(dataDir).bavail).toBeLessThan(2);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await create(`during-${i}`);
      statuses.push(res.status);
      if (res.status === 201) kept.push(res.body.id);
      else expect(res.body, JSON.stringify(res.body)).toMatchObject({ error: { code: 'INSUFFICIENT_STORAGE' } });
    }
    // A page with room left may take a row or two; a full disk refuses the rest, never with a 500.
    expect(statuses.filter((s) => s === 507).length, String(statuses)).toBeGreaterThanOrEqual(30);
    expect(statuses.filter((s) => s !== 507 && s !== 201)).toEqual([]);

    const ready = await api.call('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'degraded', database: 'full' });
    expect((await api.call('GET', '/health')).body).toMatchObject({ status: 'degraded' });
    const list = await api.call('GET', `${app}/content?limit=100`, { token });
    expect(list.status).toBe(200);
  }, 120_000);

  it('answers an image variant that cannot be stored 507 INSUFFICIENT_STORAGE, like an upload', async () => {
    expect(mounted, 'mounting a tmpfs needs root (as in CI)').toBe(true);
    fill(dataDir);
    const variant = await fetch(`${imageUrl}?w=20&fm=webp`);
    expect(variant.status).toBe(507);
    expect(await variant.json()).toMatchObject({ error: { code: 'INSUFFICIENT_STORAGE' } });
  });

  it('takes writes again once space is freed, without a restart, and lost nothing it acknowledged', async () => {
    expect(mounted, 'mounting a tmpfs needs root (as in CI)').toBe(true);
    rmSync(filler);
    const healed = await waitFor(
      'a write succeeds again',
      async () => ((r) => r.status === 201 && r)(await create('after')),
      {
        timeoutMs: HEALS_WITHIN_MS,
        intervalMs: 200,
      },
    );
    kept.push(healed.body.id);
    await waitFor('/ready says ready', async () => (await api.call('GET', '/ready')).body.status === 'ready', {
      timeoutMs: HEALS_WITHIN_MS,
      intervalMs: 200,
    });
    expect((await fetch(`${imageUrl}?w=20&fm=webp`)).status).toBe(200);
    for (const id of kept) expect((await api.call('GET', `${app}/content/${id}`, { token })).status).toBe(200);
    expect(service.output()).not.toMatch(/unexpected error/);
  }, 120_000);
});

describe('an external PostgreSQL whose tablespace is on a full disk', () => {
  /** The database's tablespace on a small tmpfs; the cluster's WAL and catalogs stay on the ordinary disk. */
  let space = { dir: '', mounted: false };
  let pg: FaultServer;
  let service: TestService;
  let api: Client;
  let token: string;
  let typeId: string;
  beforeAll(async () => {
    space = tmpfs('cp-tablespace-full-', '48m');
    if (!space.mounted) return;
    pg = await startPostgres();
    execFileSync('chown', ['postgres:postgres', space.dir]);
    const admin = new Pg({ connectionString: pg.url });
    await admin.connect();
    try {
      await admin.query(`create tablespace small location '${space.dir}'`);
      await admin.query('create database app tablespace small');
    } finally {
      await admin.end();
    }
    service = await startService({ databaseUrl: pg.url.replace(/\/postgres$/, '/app'), env: { EMBEDDINGS: 'off' } });
    api = new Client(service.url);
    token = await api.login();
    const type = await api.call('POST', `${app}/content-types`, {
      token,
      body: { name: 'Note', schema: { type: 'object', properties: { title: { type: 'string' } } } },
    });
    typeId = type.body.id;
    expect((await api.call('POST', `${app}/content-types/${typeId}/publish`, { token })).status).toBe(200);
  }, 240_000);
  afterAll(async () => {
    await service?.destroy();
    await pg?.destroy();
    unmount(space);
  });

  it('answers writes 507 (SQLSTATE 53100), never 500, says so on /ready, and takes writes again once space is freed', async () => {
    expect(space.mounted, 'mounting a tmpfs needs root (as in CI)').toBe(true);
    const create = (name: string) =>
      api.call('POST', `${app}/content`, { token, body: { typeId, name, content: { title: name.repeat(50) } } });
    fill(space.dir);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await create(`during-${i}`);
      statuses.push(res.status);
      if (res.status !== 201)
        expect(res.body, JSON.stringify(res.body)).toMatchObject({ error: { code: 'INSUFFICIENT_STORAGE' } });
    }
    expect(statuses.filter((s) => s === 507).length, String(statuses)).toBeGreaterThanOrEqual(30);
    expect(statuses.filter((s) => s !== 507 && s !== 201)).toEqual([]);
    expect((await api.call('GET', '/ready')).body).toEqual({ status: 'degraded', database: 'full' });
    expect((await api.call('GET', `${app}/content?limit=10`, { token })).status).toBe(200);

    rmSync(join(space.dir, 'filler'));
    await waitFor('a write succeeds again', async () => (await create('after')).status === 201, {
      timeoutMs: HEALS_WITHIN_MS,
      intervalMs: 200,
    });
    await waitFor('/ready says ready', async () => (await api.call('GET', '/ready')).body.status === 'ready', {
      timeoutMs: HEALS_WITHIN_MS,
      intervalMs: 200,
    });
    expect(service.output()).not.toMatch(/unexpected error/);
  }, 120_000);
});
