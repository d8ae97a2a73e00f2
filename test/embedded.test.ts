// Black-box: `npm start` with no DATABASE_URL serves from embedded PostgreSQL that survives a restart and belongs to one process.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@cp/db';
import { embeddedSchema } from '@cp/db/testing';
import { SUBGRAPHS } from '@cp/gateway';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { JWT_SECRET, runCli, startService } from './support/service';

describe('embedded database (PGlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with no other service, and keeps data across a restart', async () => {
    const first = await startService({ database: 'pglite', dataDir });
    const api = new Client(first.url);
    const token = await api.login();
    const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token,
      body: { name: 'Persisted', schema: { type: 'object' } },
    });
    expect(created.status).toBe(201);
    await first.destroy();

    const second = await startService({ database: 'pglite', dataDir });
    try {
      const again = new Client(second.url);
      const res = await again.call('GET', `/app/v1${PROJECT}/content-types/${created.body.id}`, {
        token: await again.login(),
      });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Persisted');
    } finally {
      await second.destroy();
    }
  });
});

describe('embedded database: first start', () => {
  const root = mkdtempSync(join(tmpdir(), 'cp-embedded-first-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('loads the initial data built with the service, and ends with the schema of the migration path', async () => {
    const fromData = join(root, 'initial-data');
    const service = await startService({ database: 'pglite', dataDir: fromData });
    try {
      const started = service
        .output()
        .split('\n')
        .find((line) => line.includes('using embedded PostgreSQL'));
      expect(JSON.parse(started!).fromInitialData, service.output()).toBe(true);
      // The bootstrap still ran on it.
      expect(await new Client(service.url).login()).toBeTruthy();
    } finally {
      await service.stop();
    }
    // The same migrations run one by one on a new database, as a start without initial data does.
    const migrated = join(root, 'migrated');
    const config = { database: { poolMax: 2, dataDir: migrated } };
    await (await openDatabase({ config, modules: SUBGRAPHS.map((s) => s.database) })).close();
    const [expected, actual] = [await embeddedSchema(migrated), await embeddedSchema(fromData)];
    expect(expected.migrations.length).toBeGreaterThan(20);
    expect(actual).toEqual(expected);
  }, 300_000);
});

/** Runs the `content-platform` CLI on the embedded database under `dataDir`. */
const cli = (dataDir: string, args: string[]) => runCli({ DATA_DIR: dataDir, JWT_SECRET }, args);

describe('embedded database: one process at a time', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-embedded-lock-'));
  const socket = join(dataDir, 'pgdata', '.s.PGSQL.5432');
  const lock = join(dataDir, 'pgdata.lock');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses the CLI and a second service while the service runs, keeps every confirmed write, and recovers a killed owner', async () => {
    const service = await startService({ database: 'pglite', dataDir });
    const names: string[] = [];
    try {
      const api = new Client(service.url);
      const token = await api.login();
      for (const name of ['alpha', 'beta', 'gamma']) {
        expect((await api.call('POST', `/app/v1${PROJECT}/tags`, { token, body: { name } })).status).toBe(201);
        names.push(name);
      }

      // The CLI refuses with a message and exit code 5; the live socket stays, and the service keeps answering.
      for (let round = 0; round < 2; round++) {
        const run = await cli(dataDir, ['keys', 'create', '--name', `cli-${round}`, '--json']);
        expect(run.code, run.stdout + run.stderr).toBe(5);
        expect(run.stderr).toContain(`in process ${service.child.pid}`);
        expect(run.stderr).toMatch(/stop the service .* or do this through the running service/);
        expect(run.stdout).toBe('');
        expect(statSync(socket).isSocket()).toBe(true);
        expect(readFileSync(lock, 'utf8').trim()).toBe(String(service.child.pid));
        expect(
          (await api.call('POST', `/app/v1${PROJECT}/tags`, { token, body: { name: `during-${round}` } })).status,
        ).toBe(201);
        names.push(`during-${round}`);
      }

      // A second service on the same DATA_DIR exits at start-up with the reason.
      const second = await startService({ database: 'pglite', dataDir }).then(
        async (s) => (await s.stop(), 'started'),
        (err: Error) => err.message,
      );
      expect(second).toMatch(/exited with 1/);
      expect(second).toContain(`in use by process ${service.child.pid}`);
      expect(statSync(socket).isSocket()).toBe(true);
      expect((await api.call('GET', `/app/v1${PROJECT}/tags?limit=100`, { token })).status).toBe(200);
    } finally {
      await service.stop();
    }
    expect(existsSync(lock)).toBe(false); // released on a clean stop

    // SIGKILL leaves the lock with a dead pid: the next process recovers it, and every confirmed write is there.
    const killed = await startService({ database: 'pglite', dataDir });
    await killed.stop('SIGKILL');
    expect(readFileSync(lock, 'utf8').trim()).toBe(String(killed.child.pid));
    const created = await cli(dataDir, ['keys', 'create', '--name', 'offline', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout).key;
    expect(existsSync(lock)).toBe(false);

    const again = await startService({ database: 'pglite', dataDir });
    try {
      const api = new Client(again.url);
      const token = await api.login();
      const tags = (await api.call('GET', `/app/v1${PROJECT}/tags?limit=100`, { token })).body.data.map(
        (t: { name: string }) => t.name,
      );
      expect(tags.sort()).toEqual([...names].sort());
      expect((await api.call('GET', `/api/v1${PROJECT}/tags`, { apiKey: key })).status).toBe(200);
    } finally {
      await again.stop();
    }
  }, 600_000);
});
