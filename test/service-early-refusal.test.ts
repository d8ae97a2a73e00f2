// Black-box: a standalone subgraph service refuses a request before reading its large body (no credential, a bad one,
// too large) with the envelope and the gateway's status, over fetch without `Expect: 100-continue`, never a reset.
import { createPostgresDatabase } from '@cp/db/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

const MiB = 1024 * 1024;
/** Both hosts refuse uploads over this from Content-Length alone (413). */
const MAX_UPLOAD = 2 * MiB;
/** Large enough that the client is still writing when the refusal comes. */
const BODY = 8 * MiB;
const ROUNDS = 3;
const run = promisify(execFile);

interface Answer {
  status: number | string;
  code?: string;
  /** `errors[]` (GraphQL) or `error` (REST): the shape the host's route answers with. */
  shape?: 'graphql' | 'rest';
}

/** fetch sends no `Expect: 100-continue`: the body is on its way when the answer comes. A reset is an answer too. */
async function send(url: string, init: RequestInit): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { status: `no answer: ${cause?.code ?? cause?.message ?? String(err)}` };
  }
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return { status: res.status, code: `not JSON: ${text.slice(0, 80)}` };
  }
  if (body?.errors) return { status: res.status, code: body.errors[0]?.extensions?.code, shape: 'graphql' };
  return { status: res.status, code: body?.error?.code, shape: 'rest' };
}

/** curl with its default `Expect: 100-continue` for large bodies: how much of the body it sent (`%{size_upload}`). */
async function curl(args: string[]): Promise<Answer & { uploaded: number }> {
  const marker = '\n--curl-stats--';
  const { stdout } = await run('curl', [
    '-sS',
    '--max-time',
    '60',
    '-w',
    `${marker}%{http_code} %{size_upload}`,
    ...args,
  ]);
  const [text, stats] = stdout.split(marker);
  const [status, uploaded] = stats.split(' ').map(Number);
  return { status, code: JSON.parse(text)?.error?.code, shape: 'rest', uploaded };
}

function upload(size: number): FormData {
  const form = new FormData();
  form.append('file', new Blob([Buffer.alloc(size, 7)], { type: 'application/octet-stream' }), 'big.bin');
  return form;
}

describe('early refusals at a standalone subgraph service', () => {
  let gateway: TestService;
  let assets: Process;
  let dataDir: string;
  let drop: () => Promise<void>;
  let token: string;
  const limits = {
    MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_HOUR: '1000000',
    // A shutdown grace window long enough for the last test (a second SIGTERM, afterAll's, ends it early).
    SHUTDOWN_GRACE_MS: '60000',
  };

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    dataDir = mkdtempSync(join(tmpdir(), 'cp-service-early-'));
    // The gateway bootstraps and migrates; the assets service shares its database and DATA_DIR (as in production).
    gateway = await startService({ databaseUrl: db.url, dataDir, env: limits });
    const env = {
      ...limits,
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      JWT_SECRET,
      SUBGRAPH_SECRET,
      SUBGRAPH_PORT: String(await freePort()),
    };
    assets = await spawnNode('subgraphs/assets/dist/main.js', env, /subgraph assets listening/);
    token = await new Client(gateway.url).login();
  }, 240_000);

  afterAll(async () => {
    await assets?.stop();
    await gateway?.destroy();
    await drop?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const origin = (host: 'gateway' | 'assets') =>
    host === 'gateway' ? gateway.url : assets.url.replace(/\/graphql$/, '');

  it('answers refused uploads with a large body like the gateway does: the envelope, not a reset connection', async () => {
    const cases: { name: string; headers: Record<string, string>; want: Answer }[] = [
      { name: 'no credential', headers: {}, want: { status: 401, code: 'UNAUTHORIZED', shape: 'rest' } },
      {
        name: 'bad token',
        headers: { authorization: 'Bearer not-a-jwt' },
        want: { status: 401, code: 'UNAUTHORIZED', shape: 'rest' },
      },
      {
        name: 'too large',
        headers: { authorization: `Bearer ${token}` },
        want: { status: 413, code: 'PAYLOAD_TOO_LARGE', shape: 'rest' },
      },
    ];
    const seen: unknown[] = [];
    const wanted: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, headers, want } of cases) {
        for (const host of ['gateway', 'assets'] as const) {
          const answer = await send(`${origin(host)}/app/v1${PROJECT}/assets`, {
            method: 'POST',
            headers,
            body: upload(BODY),
          });
          seen.push({ round, name, host, ...answer });
          wanted.push({ round, name, host, ...want });
        }
      }
    }
    expect(seen).toEqual(wanted);
  }, 180_000);

  it('answers a large GraphQL body it refuses before reading (bad principal, too large) with its errors[], not a reset', async () => {
    const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(BODY) } });
    const json = { 'content-type': 'application/json' };
    const seen: unknown[] = [];
    const wanted: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Over the 1 MiB JSON limit: the gateway's 413, as GraphQL errors[] at the service.
      for (const host of ['gateway', 'assets'] as const) {
        const headers = { ...json, authorization: `Bearer ${token}` };
        const answer = await send(`${origin(host)}/graphql`, { method: 'POST', headers, body: big });
        seen.push({ round, case: 'too large', host, status: answer.status, code: answer.code });
        wanted.push({ round, case: 'too large', host, status: 413, code: 'PAYLOAD_TOO_LARGE' });
      }
      // A principal header that no gateway signed: refused before the body is read.
      const headers = { ...json, 'x-cp-principal': 'not-a-signed-principal' };
      const answer = await send(assets.url, { method: 'POST', headers, body: big });
      seen.push({ round, case: 'bad principal', ...answer });
      wanted.push({ round, case: 'bad principal', status: 401, code: 'UNAUTHORIZED', shape: 'graphql' });
    }
    expect(seen).toEqual(wanted);
  }, 180_000);
  it('answers curl’s `Expect: 100-continue` upload it refuses instead of 100 Continue, like the gateway: no body sent', async () => {
    const file = join(dataDir, 'big.bin');
    writeFileSync(file, Buffer.alloc(BODY, 7));
    const seen: unknown[] = [];
    const wanted: unknown[] = [];
    for (const host of ['gateway', 'assets'] as const) {
      for (const [name, auth, want] of [
        ['no credential', [], { status: 401, code: 'UNAUTHORIZED' }],
        ['bad token', ['-H', 'authorization: Bearer not-a-jwt'], { status: 401, code: 'UNAUTHORIZED' }],
        ['too large', ['-H', `authorization: Bearer ${token}`], { status: 413, code: 'PAYLOAD_TOO_LARGE' }],
      ] as const) {
        const answer = await curl([...auth, '-F', `file=@${file}`, `${origin(host)}/app/v1${PROJECT}/assets`]);
        seen.push({ host, name, ...answer, uploaded: answer.uploaded < MiB ? 'not sent' : answer.uploaded });
        wanted.push({ host, name, ...want, shape: 'rest', uploaded: 'not sent' });
      }
    }
    expect(seen).toEqual(wanted);
  }, 120_000);

  // Last: both processes are shutting down from here on.
  it('in the shutdown grace window (answers close their connection), still answers a refused large body, not a reset', async () => {
    gateway.child.kill('SIGTERM');
    assets.child.kill('SIGTERM');
    for (const host of ['gateway', 'assets'] as const) {
      while ((await fetch(`${origin(host)}/ready`)).status !== 503) await new Promise((r) => setTimeout(r, 50));
    }
    const seen: unknown[] = [];
    const wanted: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const host of ['gateway', 'assets'] as const) {
        const answer = await send(`${origin(host)}/app/v1${PROJECT}/assets`, { method: 'POST', body: upload(BODY) });
        seen.push({ round, host, ...answer });
        wanted.push({ round, host, status: 401, code: 'UNAUTHORIZED', shape: 'rest' });
      }
    }
    expect(seen).toEqual(wanted);
  }, 120_000);
});
