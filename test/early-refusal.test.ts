// Black-box: a request refused before its body is read (too large, unauthenticated) gets the error envelope, over fetch and curl, with and without `Expect: 100-continue`.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const run = promisify(execFile);
const MiB = 1024 * 1024;
/** Over MAX_UPLOAD_BYTES (50 MiB by default): refused from Content-Length alone. */
const HUGE = 51 * MiB;

interface Answer {
  status: number;
  body: any;
  /** Bytes of the request body curl sent (`%{size_upload}`). */
  uploaded?: number;
}

/** curl with its default `Expect: 100-continue` for large bodies, or with it disabled (`-H 'Expect:'`). */
async function curl(args: string[], expectContinue: boolean): Promise<Answer> {
  const marker = '\n--curl-stats--';
  const { stdout } = await run(
    'curl',
    [
      '-sS',
      '--max-time',
      '120',
      ...(expectContinue ? [] : ['-H', 'Expect:']),
      '-w',
      `${marker}%{http_code} %{size_upload}`,
      ...args,
    ],
    { maxBuffer: 4 * MiB },
  );
  const [text, stats] = stdout.split(marker);
  const [status, uploaded] = stats.split(' ').map(Number);
  return { status, body: JSON.parse(text), uploaded };
}

async function fetched(url: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

describe('early refusals', () => {
  const fx = useService({ env: UNLIMITED });
  const dir = mkdtempSync(join(tmpdir(), 'cp-early-'));
  const huge = join(dir, 'huge.bin');
  const json = join(dir, 'big.json');
  writeFileSync(huge, Buffer.alloc(HUGE, 7));
  writeFileSync(json, JSON.stringify({ name: 'x'.repeat(2 * MiB) }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const assets = () => `${fx.service.url}/app/v1${PROJECT}/assets`;
  const tags = () => `${fx.service.url}/app/v1${PROJECT}/tags`;

  it('answers an upload over the limit with the 413 envelope over fetch, several times in a row', async () => {
    for (let round = 0; round < 3; round++) {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(HUGE, round)]), 'huge.bin');
      const res = await fetched(assets(), {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.token}` },
        body: form,
      });
      expect(res).toMatchObject({
        status: 413,
        body: { error: { code: 'PAYLOAD_TOO_LARGE', details: { limit: 50 * MiB } } },
      });
      // Unauthenticated: refused before the body too.
      const anonymous = new FormData();
      anonymous.append('file', new Blob([Buffer.alloc(HUGE, round)]), 'huge.bin');
      expect(await fetched(assets(), { method: 'POST', body: anonymous })).toMatchObject({
        status: 401,
        body: { error: { code: 'UNAUTHORIZED' } },
      });
      // A JSON body over the 1 MiB limit, on REST and GraphQL.
      const big = JSON.stringify({ name: 'x'.repeat(3 * MiB) });
      const headers = { authorization: `Bearer ${fx.token}`, 'content-type': 'application/json' };
      expect(await fetched(tags(), { method: 'POST', headers, body: big })).toMatchObject({
        status: 413,
        body: { error: { code: 'PAYLOAD_TOO_LARGE' } },
      });
      expect(await fetched(`${fx.service.url}/graphql`, { method: 'POST', headers, body: big })).toMatchObject({
        status: 413,
        body: { error: { code: 'PAYLOAD_TOO_LARGE' } },
      });
    }
  }, 300_000);

  it('answers curl with the envelope with Expect (before the body is sent) and without it (after discarding the body)', async () => {
    const auth = ['-H', `authorization: Bearer ${fx.token}`];
    for (const expectContinue of [true, false]) {
      const upload = await curl([...auth, '-F', `file=@${huge}`, assets()], expectContinue);
      expect(upload).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
      // With Expect the answer comes instead of 100 Continue: the body is never sent.
      if (expectContinue) expect(upload.uploaded).toBeLessThan(MiB);
      const anonymous = await curl(['-F', `file=@${huge}`, assets()], expectContinue);
      expect(anonymous).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
      const jsonArgs = [...auth, '-H', 'content-type: application/json', '--data-binary', `@${json}`];
      expect(await curl([...jsonArgs, tags()], expectContinue)).toMatchObject({
        status: 413,
        body: { error: { code: 'PAYLOAD_TOO_LARGE' } },
      });
    }
  }, 300_000);

  it('still sends 100 Continue to accepted requests that ask for it', async () => {
    const small = join(dir, 'small.txt');
    writeFileSync(small, 'hello\n');
    const auth = ['-H', `authorization: Bearer ${fx.token}`, '-H', 'Expect: 100-continue'];
    const upload = await curl([...auth, '-F', `file=@${small}`, assets()], true);
    expect(upload).toMatchObject({ status: 201, body: { name: 'small.txt' } });
    const tag = await curl(
      [
        ...auth,
        '-H',
        'content-type: application/json',
        '--data-binary',
        JSON.stringify({ name: 'expect-continue' }),
        tags(),
      ],
      true,
    );
    expect(tag).toMatchObject({ status: 201, body: { name: 'expect-continue' } });
    // Just under the JSON limit: read after 100 Continue, refused by validation rather than by size.
    writeFileSync(join(dir, 'near.json'), JSON.stringify({ name: 'y'.repeat(MiB - 100) }));
    const near = await curl(
      [...auth, '-H', 'content-type: application/json', '--data-binary', `@${join(dir, 'near.json')}`, tags()],
      true,
    );
    expect(near.status).toBe(422);
    expect(near.uploaded).toBeGreaterThan(MiB - 100);
  }, 120_000);
});
