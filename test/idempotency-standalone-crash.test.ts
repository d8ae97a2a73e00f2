// Black-box: in the standalone deployment (subgraph services behind our gateway), an idempotent retry after the
// gateway was killed (SIGKILL) between the content service's commit and the gateway's storing of the answer runs nothing.
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import type { TestService } from './support/service';
import { startStandaloneStack, type StandaloneStack } from './support/standalone';
import { waitFor } from './support/wait';

const app = `/app/v1${PROJECT}`;

describe('idempotent retries across a gateway crash, standalone services', () => {
  let stack: StandaloneStack;
  /** The gateway answering now: the one started after the crash, once there is one. */
  let gateway: TestService;
  let pg: Pg;
  let token: string;
  let typeId: string;

  beforeAll(async () => {
    stack = await startStandaloneStack({ env: { EMBEDDINGS: 'off' } });
    gateway = stack.gateway;
    const api = new Client(gateway.url);
    token = await api.login();
    const type = { name: 'Page', schema: { type: 'object' } };
    typeId = (await api.call('POST', `${app}/content-types`, { token, body: type })).body.id;
    expect((await api.call('POST', `${app}/content-types/${typeId}/publish`, { token })).status).toBe(200);
    pg = new Pg({ connectionString: stack.databaseUrl });
    await pg.connect();
  }, 120_000);

  afterAll(async () => {
    await pg?.end();
    await stack?.stop();
  });

  it('never runs a create again that the content service committed before the gateway kept its answer', async () => {
    const create = () =>
      new Client(gateway.url).call('POST', `${app}/content`, {
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
    await gateway.stop('SIGKILL');
    await pg.query(`drop trigger hold_answer on "idempotency_key"`);
    await pg.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`,
    );
    // Past the abandonment window.
    await pg.query(`update "idempotency_key" set "started_at" = "started_at" - interval '10 minutes'`);
    gateway = await stack.startGateway();

    const retry = await create();
    expect(await stored()).toBe(1);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_ANSWER_LOST');
  }, 60_000);
});
