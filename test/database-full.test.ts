// Black-box: the embedded database and the asset store on a full disk (a real tmpfs filled up): writes answer 507
// INSUFFICIENT_STORAGE (not 500), reads keep working, `/ready` says the database is full, an image variant is 507 like
// an upload; once space is freed, writes work again without a restart and nothing acknowledged is lost. The three
// cases run in order on one service.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';
import { waitFor } from './support/wait';

/** DATA_DIR (PGlite's files and the assets) on a tmpfs of its own: real ENOSPC from the kernel (CI runs as root). */
const dataDir = mkdtempSync(join(tmpdir(), 'cp-database-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', dataDir], { stdio: 'ignore' });
  mounted = true;
} catch {
  // not allowed to mount here: the test below says so instead of passing
}
const filler = join(dataDir, 'filler');
/** Fills what is left of the disk (dd stops at ENOSPC, exiting non-zero). */
const fill = () => {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' });
  } catch {
    // the disk is full: what dd was for
  }
};
/** `/ready` is degraded for this long after the last refusal (packages/db/src/exhaustion-watch.ts), plus slack. */
const HEALS_WITHIN_MS = 5000 + 5000;

const app = `/app/v1${PROJECT}`;

describe('the embedded database on a full disk', () => {
  let service: TestService;
  let api: Client;
  let token: string;
  let typeId: string;
  let imageUrl: string;
  beforeAll(async () => {
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
    if (mounted) execFileSync('umount', ['-l', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
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

    fill();
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
    fill();
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
