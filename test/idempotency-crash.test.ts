// Black-box: an idempotent retry after the gateway was killed (SIGKILL) mid-request runs the change at most once.
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';
import { waitFor } from './support/wait';

const base = `/app/v1${PROJECT}`;

describe('idempotent retries across a crash', () => {
  let first: TestService;
  let service: TestService;
  let pg: Pg;
  let token = '';
  let typeId = '';
  const running: TestService[] = [];

  beforeAll(async () => {
    first = service = await startService();
    running.push(first);
    pg = new Pg({ connectionString: first.databaseUrl });
    await pg.connect();
    const api = new Client(service.url);
    token = await api.login();
    const type = await api.call('POST', `${base}/content-types`, {
      token,
      body: { name: 'Crash', schema: { type: 'object', properties: { title: { type: 'string' } } } },
    });
    typeId = type.body.id;
    expect((await api.call('POST', `${base}/content-types/${typeId}/publish`, { token })).status).toBe(200);
  });
  afterAll(async () => {
    await pg?.end();
    for (const s of running.reverse()) await s.destroy();
  });

  const create = (name: string, key: string) =>
    new Client(service.url).call('POST', `${base}/content`, {
      token,
      body: { typeId, name, content: { title: name } },
      headers: { 'idempotency-key': key },
    });
  const stored = async (name: string) =>
    (await pg.query<{ n: number }>(`select count(*)::int as n from "content" where "name" = $1`, [name])).rows[0].n;

  /**
   * Holds the statement that `holdWhen` picks (a trigger that sleeps), kills the gateway with SIGKILL once `reached`
   * holds, ends the held statement (a dead client's backend would otherwise finish it), lets the abandonment window
   * pass (the key's claim is moved ten minutes into the past) and starts the gateway again on the same database.
   */
  async function crashWhile(table: string, holdWhen: string, reached: () => Promise<boolean>, send: () => unknown) {
    await pg.query(`create or replace function hold_statement() returns trigger language plpgsql as $$
      begin if ${holdWhen} then perform pg_sleep(60); end if; return new; end $$`);
    await pg.query(`create trigger hold_statement before insert or update on "${table}"
      for each row execute function hold_statement()`);
    void Promise.resolve(send()).catch(() => undefined);
    await waitFor('the held moment', reached);
    await service.stop('SIGKILL');
    await pg.query(`drop trigger hold_statement on "${table}"`);
    await pg.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
    );
    await pg.query(`update "idempotency_key" set "started_at" = "started_at" - interval '10 minutes'`);
    service = await startService({ databaseUrl: first.databaseUrl });
    running.push(service);
  }

  it('never runs a create again whose change committed before its answer was kept', async () => {
    let answered: unknown;
    await crashWhile(
      'idempotency_key',
      `new."state" = 'done'`,
      async () => (await stored('committed once')) === 1,
      () => create('committed once', 'crash-after-commit').then((r) => (answered = r)),
    );
    expect(answered).toBeUndefined();
    const retry = await create('committed once', 'crash-after-commit');
    expect(await stored('committed once')).toBe(1);
    // The change is there but its answer is not: the retry is told so instead of running it again.
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_ANSWER_LOST');
    // And stays told so.
    expect((await create('committed once', 'crash-after-commit')).status).toBe(409);
    expect(await stored('committed once')).toBe(1);
  }, 60_000);

  it('runs a create once on retry whose process died before its change committed', async () => {
    await crashWhile(
      'content',
      `new."name" = 'never committed'`,
      async () =>
        (await pg.query(`select 1 from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`))
          .rowCount === 1,
      () => create('never committed', 'crash-before-commit'),
    );
    expect(await stored('never committed')).toBe(0);
    const retry = await create('never committed', 'crash-before-commit');
    expect(retry.status).toBe(201);
    expect(await stored('never committed')).toBe(1);
    const replay = await create('never committed', 'crash-before-commit');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(retry.body);
  }, 60_000);
});
