// Black-box: in the standalone deployment (subgraph services behind our gateway), an idempotent retry (D17) after the
// gateway was killed (SIGKILL) between the content service's commit and the gateway's storing of the answer runs nothing.
import { createPostgresDatabase } from '@cp/db/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import {
  freePort,
  JWT_SECRET,
  spawnNode,
  startService,
  SUBGRAPH_SECRET,
  type Process,
  type TestService,
} from './support/service';
import { waitFor } from './support/wait';

const app = `/app/v1${PROJECT}`;
const NAMES = ['access', 'content', 'components', 'assets'] as const;

describe('idempotent retries across a gateway crash, standalone services (D17)', () => {
  const services: Process[] = [];
  const gateways: TestService[] = [];
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let dataDir: string;
  let gatewayEnv: Record<string, string>;
  let pg: Pg;
  let token: string;
  let typeId: string;

  beforeAll(async () => {
    ({ url: databaseUrl, drop } = await createPostgresDatabase());
    dataDir = mkdtempSync(join(tmpdir(), 'cp-standalone-idempotency-'));
    const urls: string[] = [];
    // One after another: each migrates its own tables on the shared database.
    for (const name of NAMES) {
      const env = {
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        JWT_SECRET,
        SUBGRAPH_SECRET,
        SUBGRAPH_PORT: String(await freePort()),
        EMBEDDINGS: 'off',
      };
      const service = await spawnNode(`subgraphs/${name}/dist/main.js`, env, new RegExp(`subgraph ${name} listening`));
      services.push(service);
      urls.push(`${name}=${service.url}`);
    }
    gatewayEnv = { SUBGRAPH_URLS: urls.join(','), EMBEDDINGS: 'off' };
    gateways.push(await startService({ databaseUrl, dataDir, env: gatewayEnv }));
    const api = new Client(gateways[0].url);
    token = await api.login();
    const type = { name: 'Page', schema: { type: 'object' } };
    typeId = (await api.call('POST', `${app}/content-types`, { token, body: type })).body.id;
    expect((await api.call('POST', `${app}/content-types/${typeId}/publish`, { token })).status).toBe(200);
    pg = new Pg({ connectionString: databaseUrl });
    await pg.connect();
  }, 120_000);

  afterAll(async () => {
    await pg?.end();
    for (const s of [...gateways, ...services]) await s.stop();
    await drop?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('never runs a create again that the content service committed before the gateway kept its answer', async () => {
    const create = () =>
      new Client(gateways.at(-1)!.url).call('POST', `${app}/content`, {
        token,
        body: { typeId, name: 'standalone once', content: {} },
        headers: { 'idempotency-key': 'standalone-crash' },
      });
    const stored = async () =>
      (await pg.query<{ n: number }>(`select count(*)::int as n from "content" where "name" = 'standalone once'`))
        .rows[0].n;
    // The gateway's storing of the answer sleeps; the gateway is killed meanwhile.
    await pg.query(`create function hold_answer() returns trigger language plpgsql as $$
      begin if new."state" = 'done' then perform pg_sleep(60); end if; return new; end $$`);
    await pg.query(`create trigger hold_answer before update on "idempotency_key"
      for each row execute function hold_answer()`);
    void create().catch(() => undefined);
    await waitFor('the service committed', async () => (await stored()) === 1);
    await waitFor(
      'the answer held',
      async () =>
        (await pg.query(`select 1 from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`))
          .rowCount === 1,
    );
    await gateways[0].stop('SIGKILL');
    await pg.query(`drop trigger hold_answer on "idempotency_key"`);
    await pg.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`,
    );
    // Past the abandonment window.
    await pg.query(`update "idempotency_key" set "started_at" = "started_at" - interval '10 minutes'`);
    gateways.push(await startService({ databaseUrl, dataDir, env: gatewayEnv }));

    const retry = await create();
    expect(await stored()).toBe(1);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_ANSWER_LOST');
  }, 60_000);
});
