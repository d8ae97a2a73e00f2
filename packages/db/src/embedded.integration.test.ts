// The embedded database: reachable only through a private Unix socket; its initial data (first start).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@cp/config';
import type { MigrationObject } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { afterAll, describe, expect, it } from 'vitest';
import { coreMigrations as core } from './migrations';
import { buildInitialData, openDatabase, type DatabaseModule } from './orm';
import { embeddedSchema } from './testing';

describe('embedded PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-embedded-socket-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the pool on a 0600 Unix socket inside DATA_DIR, not on a TCP port', async () => {
    const db = await openDatabase({ config: { database: { poolMax: 2, dataDir } }, modules: [] });
    try {
      const socket = statSync(join(dataDir, 'pgdata', '.s.PGSQL.5432'));
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);
      const [row] = await db.orm.em.getConnection().execute<{ ok: number }[]>('select 1 as ok');
      expect(row.ok).toBe(1);
      expect(db.orm.config.get('host')).toBe(join(dataDir, 'pgdata'));
    } finally {
      await db.close();
    }
  });
});

class CreateA extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "a" ("id" int primary key, "name" text not null);`);
    this.addSql(`create index "a_name" on "a" ("name");`);
  }
}
/** Same name as CreateA, edited after a build. */
class CreateAEdited extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "a" ("id" int primary key, "name" text not null, "note" text);`);
  }
}
class CreateB extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create unlogged table "b" ("id" int primary key, "a_id" int references "a" ("id"));`);
    this.addSql(`create function "b_touch"() returns trigger language plpgsql as $$ begin return new; end $$;`);
    this.addSql(`create trigger "b_touch" before insert on "b" for each row execute function "b_touch"();`);
  }
}

const moduleOf = (...migrations: [string, MigrationObject['class']][]): DatabaseModule => ({
  name: 'sample',
  entities: [],
  migrations: migrations.map(([name, type]) => ({ name, class: type })),
});

describe('embedded initial data', () => {
  const root = mkdtempSync(join(tmpdir(), 'cp-initial-data-test-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let dirs = 0;

  /** Opens a new DATA_DIR with `module` (from `initialData` when given); its schema and whether it loaded the data. */
  async function firstStart(module: DatabaseModule, initialData?: string) {
    const dataDir = join(root, `data-${dirs++}`);
    const logged: { fromInitialData?: boolean; reason?: string }[] = [];
    const logger = { info: (o: object) => logged.push(o), warn: (o: object) => logged.push(o) } as unknown as Logger;
    const config = { database: { poolMax: 2, dataDir } };
    const db = await openDatabase({ config, modules: [module], logger, initialData });
    await db.close();
    return { schema: await embeddedSchema(dataDir), loaded: logged.some((o) => o.fromInitialData), logged };
  }

  async function build(module: DatabaseModule): Promise<string> {
    const file = join(root, `initial-${dirs++}.tar.gz`);
    await buildInitialData([module], file);
    return file;
  }

  it('gives the schema of the migration path, and runs the migrations it lacks', async () => {
    const full = moduleOf(['MigrationA', CreateA], ['MigrationB', CreateB]);
    const [complete, partial] = [await build(full), await build(moduleOf(['MigrationA', CreateA]))];
    const scratch = await firstStart(full);
    expect(scratch.loaded).toBe(false);
    expect(scratch.schema.migrations.length).toBe(core.length + 2);
    for (const file of [complete, partial]) {
      const started = await firstStart(full, file);
      expect(started.loaded).toBe(true);
      expect(started.schema).toEqual(scratch.schema);
    }
  }, 300_000);

  it('is ignored when a migration it holds was edited since', async () => {
    const file = await build(moduleOf(['MigrationA', CreateA]));
    const edited = moduleOf(['MigrationA', CreateAEdited]);
    const started = await firstStart(edited, file);
    expect(started.loaded).toBe(false);
    const reasons = started.logged.map((o) => o.reason);
    expect(reasons).toContain('migration MigrationA differs from the one the initial data was built with');
    expect(started.schema).toEqual((await firstStart(edited)).schema);
  }, 300_000);
});
