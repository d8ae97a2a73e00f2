// Black-box: the `content-platform` CLI moves a 1,000-entry project from the embedded database to a fresh PostgreSQL installation.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as Pg } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { runCli, startService, UNLIMITED, type TestService } from './support/service';

const ENTRIES = 1000;
const FAST = {
  ...UNLIMITED,
  EMBEDDINGS: 'off',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
};
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);
const HERO = `
/** Props. */
export interface Props { title: string; }
export function metadata() { return { title: 'Hero', description: 'A heading' }; }
export default function render(props: Props) { return '<h1>' + String(props.title) + '</h1>'; }
`;

/** Runs the CLI with the database settings of `service`. */
const cli = (service: TestService, args: string[]) =>
  runCli(
    { JWT_SECRET: service.env.JWT_SECRET, DATA_DIR: service.env.DATA_DIR, DATABASE_URL: service.env.DATABASE_URL },
    args,
  );

/** Runs `work` over `items` with `width` requests in flight. */
async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

function ok<T = any>(res: { status: number; body: T }, status = 200): T {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function upload(url: string, token: string, bytes: Buffer, name: string): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return res.json();
}

/** What an API key client sees: every published entry, resolved entries, content type versions, packages, asset bytes. */
async function clientView(api: Client, apiKey: string, token: string, sample: string[]) {
  const base = `/api/v1${PROJECT}`;
  const content: any[] = [];
  for (let lastKey: string | undefined; ;) {
    const page = ok(
      await api.call(
        'GET',
        `${base}/content?limit=100&sort=updatedAt:asc${lastKey ? `&lastKey=${encodeURIComponent(lastKey)}` : ''}`,
        { apiKey },
      ),
    );
    content.push(...page.data);
    lastKey = page.pagination.lastKey;
    if (!lastKey) break;
  }
  content.sort((a, b) => a.id.localeCompare(b.id));
  const resolved = await Promise.all(
    sample.map(async (id) => ok(await api.call('GET', `${base}/content/${id}/resolved`, { apiKey }))),
  );
  const versions = await Promise.all(
    sample.map(async (id) => ok(await api.call('GET', `/app/v1${PROJECT}/content/${id}/versions`, { token })).data),
  );
  const types = ok(await api.call('GET', `${base}/content-types`, { apiKey })).data;
  const typeVersions = await Promise.all(
    types.map(async (t: any) => ok(await api.call('GET', `${base}/content-types/${t.id}/versions`, { apiKey })).data),
  );
  const packages = ok(await api.call('GET', `${base}/packages`, { apiKey })).data;
  const resolvedPackage = ok(await api.call('GET', `${base}/packages/${packages[0].version}/resolved`, { apiKey }));
  const assets = ok(await api.call('GET', `${base}/assets?limit=100`, { apiKey })).data.sort((a: any, b: any) =>
    a.id.localeCompare(b.id),
  );
  const bytes = await Promise.all(
    assets.map(async (a: any) =>
      createHash('sha256')
        .update(Buffer.from(await (await fetch(a.url)).arrayBuffer()))
        .digest('hex'),
    ),
  );
  const tags = ok(await api.call('GET', `${base}/tags?limit=100`, { apiKey })).data;
  // URLs name the installation's host and port; everything else must be the same.
  const local = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(api.baseUrl, '<base>'));
  return local({ content, resolved, versions, types, typeVersions, packages, resolvedPackage, assets, bytes, tags });
}

async function count(url: string, sql: string): Promise<number> {
  const client = new Pg({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(sql)).rows[0].n);
  } finally {
    await client.end();
  }
}

describe('content-platform CLI: export, import, keys, organizations', () => {
  const work = mkdtempSync(join(tmpdir(), 'cp-cli-'));
  const services: TestService[] = [];
  afterAll(async () => {
    for (const s of services) await s.destroy();
    rmSync(work, { recursive: true, force: true });
  });

  it('moves a project with 1,000 published entries from the embedded database to PostgreSQL; a second import changes nothing; corrupt archives are refused', async () => {
    // --- source: the embedded database, seeded through the real API
    const source = await startService({ database: 'pglite', env: FAST, startTimeoutMs: 300_000 });
    services.push(source);
    const api = new Client(source.url);
    const token = await api.login();
    const base = `/app/v1${PROJECT}`;
    // The sandbox gives metadata() 500 ms of work; on a machine this busy a first run can miss it, so try again.
    let attempt = await api.call('POST', `${base}/components`, {
      token,
      body: { name: 'Hero', type: 'view', content: HERO },
    });
    for (let i = 0; i < 5 && attempt.status === 400 && /longer than/.test(JSON.stringify(attempt.body)); i++) {
      attempt = await api.call('POST', `${base}/components`, {
        token,
        body: { name: 'Hero', type: 'view', content: HERO },
      });
    }
    const hero = ok(attempt, 201);
    const iconAsset = await upload(`${source.url}${base}/components/${hero.id}/assets`, token, PNG, 'icon.png');
    ok(await api.call('POST', `${base}/packages`, { token, body: { description: 'first' } }), 201);
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, n: { type: 'integer' } },
      required: ['title'],
    };
    const type = ok(await api.call('POST', `${base}/content-types`, { token, body: { name: 'Article', schema } }), 201);
    ok(await api.call('POST', `${base}/content-types/${type.id}/publish`, { token }));
    const folder = ok(await api.call('POST', `${base}/folders`, { token, body: { name: 'news' } }), 201);
    ok(
      await api.call('POST', `${base}/saved-searches`, {
        token,
        body: { name: 'all', query: { filter: { status: { eq: 'published' } } } },
      }),
      201,
    );
    ok(
      await api.call('POST', `${base}/webhooks`, {
        token,
        body: { url: 'http://127.0.0.1:9/hook', description: 'receiver' },
      }),
      201,
    );
    const files = [
      Buffer.from('plain text asset\n'),
      PNG,
      Buffer.from(Array.from({ length: 50_000 }, (_, i) => i % 251)),
    ];
    for (const [i, bytes] of files.entries())
      await upload(`${source.url}${base}/assets`, token, bytes, `file-${i}.bin`);

    const ids: string[] = [];
    await pool(
      Array.from({ length: ENTRIES }, (_, i) => i),
      6,
      async (i) => {
        const body = {
          typeId: type.id,
          name: `Entry ${i}`,
          tags: i % 10 === 0 ? ['tenth'] : [],
          folderId: i % 2 ? folder.id : null,
          content: { title: `Title ${i}`, n: i, components: [{ type: 'Hero', props: { title: `Hero ${i}` } }] },
        };
        const entry = ok(await api.call('POST', `${base}/content`, { token, body }), 201);
        ok(await api.call('POST', `${base}/content/${entry.id}/publish`, { token }));
        ids.push(entry.id);
      },
    );
    ids.sort();
    // A few entries with 2 and 3 versions, one with an unpublished working copy on top.
    const multi = ids.slice(0, 4);
    for (const [n, id] of multi.entries()) {
      for (let v = 0; v <= n % 2; v++) {
        ok(
          await api.call('PUT', `${base}/content/${id}`, {
            token,
            body: { content: { title: `Revised ${v}`, n: v, components: [] } },
          }),
        );
        ok(await api.call('POST', `${base}/content/${id}/publish`, { token }));
      }
    }
    ok(await api.call('PUT', `${base}/content/${multi[0]}`, { token, body: { name: 'Draft on top' } }));
    const sourceKey = ok(await api.call('POST', `${base}/api-keys`, { token, body: { name: 'reader' } }), 201).key;
    const sample = [...multi, ...ids.slice(-20)];
    const before = await clientView(api, sourceKey, token, sample);
    expect(before.content).toHaveLength(ENTRIES);
    expect(before.versions.slice(0, 4).map((v: any[]) => v.length)).toEqual([2, 3, 2, 3]);
    await source.stop(); // the embedded database belongs to one process at a time

    // --- export to a .tar.gz and to a directory
    const archive = join(work, 'project.tar.gz');
    const exported = await cli(source, ['export', archive]);
    expect(exported.stderr).toContain(`content ${ENTRIES}`);
    expect(exported.code).toBe(0);
    const dir = join(work, 'project');
    expect((await cli(source, ['export', dir, '--quiet'])).code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.counts).toMatchObject({
      content: ENTRIES,
      contentVersions: ENTRIES + 6,
      assets: 3,
      componentAssets: 1,
      packages: 1,
      components: 1,
      webhooks: 1,
    });
    expect(manifest.files[`files/component-assets/${iconAsset.id}`].sha256).toBe(
      createHash('sha256').update(PNG).digest('hex'),
    );
    expect(readFileSync(join(dir, 'data/webhooks.json'), 'utf8')).not.toMatch(/secret/i);

    // --- target: a fresh PostgreSQL installation
    const target = await startService({ database: 'postgres', env: FAST, startTimeoutMs: 300_000 });
    services.push(target);
    const imported = await cli(target, ['import', archive, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).content).toEqual({ inserted: ENTRIES, updated: 0, unchanged: 0 });
    const created = await cli(target, ['keys', 'create', '--name', 'reader', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const targetKey = JSON.parse(created.stdout).key;
    expect(targetKey).toMatch(/^cpk_live_/);
    const targetApi = new Client(target.url);
    const targetToken = await targetApi.login();
    const after = await clientView(targetApi, targetKey, targetToken, sample);
    expect(after).toEqual(before);

    // --- importing again changes nothing: no row, no event
    const url = target.databaseUrl!;
    const snapshot = async () => ({
      events: await count(url, 'select count(*) as n from event'),
      content: await count(url, 'select count(*) as n from content'),
      lastChange: await count(url, 'select extract(epoch from max(updated_at)) * 1000 as n from content'),
      versions: await count(url, 'select count(*) as n from content_version'),
    });
    const once = await snapshot();
    expect(once.events).toBeGreaterThan(2 * ENTRIES);
    const again = await cli(target, ['import', dir, '--json']);
    expect(again.code, again.stderr).toBe(0);
    for (const s of Object.values(JSON.parse(again.stdout)) as any[])
      expect(s).toMatchObject({ inserted: 0, updated: 0 });
    expect(await snapshot()).toEqual(once);

    // --- corrupt archives: refused with a clear message, nothing written
    const badGzip = join(work, 'bad.tar.gz');
    writeFileSync(badGzip, Buffer.concat([readFileSync(archive).subarray(0, 200), Buffer.alloc(100, 7)]));
    const gz = await cli(target, ['import', badGzip]);
    expect(gz.code).toBe(3);
    expect(gz.stderr).toMatch(/not a readable \.tar\.gz archive/);

    const contentFile = join(dir, 'data/content.json');
    const original = readFileSync(contentFile, 'utf8');
    // One byte changed, the size kept. Not one entry's name: the entry renamed above ("Draft on top") is whichever id
    // sorts first, and may be any of them; every other entry's name starts so.
    expect(original).toContain('"Entry ');
    writeFileSync(contentFile, original.replace('"Entry ', '"Entrx '));
    const tampered = await cli(target, ['import', dir]);
    expect(tampered.code).toBe(3);
    expect(tampered.stderr).toContain('data/content.json: sha256 mismatch');
    writeFileSync(contentFile, original);

    const manifestText = readFileSync(join(dir, 'manifest.json'), 'utf8');
    rmSync(join(dir, 'manifest.json'));
    const missing = await cli(target, ['import', dir]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('manifest.json is missing');
    writeFileSync(join(dir, 'manifest.json'), manifestText.replace('"formatVersion": 1', '"formatVersion": 9'));
    const unsupported = await cli(target, ['import', dir]);
    expect(unsupported.code).toBe(3);
    expect(unsupported.stderr).toContain('formatVersion 9 is not supported');
    expect(await snapshot()).toEqual(once);

    // --- a valid archive the target refuses (its ids belong to project default): rolled back, bytes removed
    const other = ok(
      await targetApi.call('POST', `/app/v1/organizations/default/projects`, {
        token: targetToken,
        body: { name: 'Other' },
      }),
      201,
    );
    const beforeClash = await snapshot(); // creating the project wrote its own event
    const clash = await cli(target, ['import', archive, '--project', other.id]);
    expect(clash.code).toBe(4);
    expect(clash.stderr).toMatch(/nothing was written: .* already exists in project default\/default/);
    expect(await snapshot()).toEqual(beforeClash);
    const otherFiles = join(target.env.DATA_DIR, 'assets/default', other.id);
    expect(existsSync(otherFiles) ? readdirSync(otherFiles) : []).toEqual([]);
  }, 1_200_000);

  it('manages keys and users with the service rules, and reports usage errors with exit code 2', async () => {
    const target =
      services[1] ??
      (await startService({ database: 'postgres', env: FAST, startTimeoutMs: 300_000 }).then(
        (s) => (services.push(s), s),
      ));
    expect((await cli(target, ['keys', 'create', '--name', 'ops'])).stdout).toMatch(/^cpk_live_\S+\n$/);
    const listed = await cli(target, ['keys', 'list', '--json']);
    expect(listed.code).toBe(0);
    const reader = JSON.parse(listed.stdout).find((k: any) => k.name === 'ops');
    expect(reader).toMatchObject({ status: 'active' });
    expect(JSON.stringify(JSON.parse(listed.stdout))).not.toContain('cpk_live_');
    const revoked = await cli(target, ['keys', 'revoke', reader.id, '--json']);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: reader.id, status: 'revoked' });

    const weak = await cli(target, [
      'users',
      'create',
      '-e',
      'ed@example.com',
      '-n',
      'Ed',
      '-r',
      'Owner',
      '--password',
      'short',
    ]);
    expect(weak.code).toBe(4);
    expect(weak.stderr).toContain('VALIDATION_FAILED');
    const made = await cli(target, ['users', 'create', '-e', 'ed@example.com', '-n', 'Ed', '-r', 'Owner', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const { password } = JSON.parse(made.stdout);
    const api = new Client(target.url);
    await api.login('ed@example.com', password);
    const reset = await cli(target, [
      'users',
      'reset-password',
      '-e',
      'ed@example.com',
      '--password',
      'a much longer password',
    ]);
    expect(reset.code, reset.stderr).toBe(0);
    await expect(api.login('ed@example.com', password)).rejects.toThrow(/401/);
    await api.login('ed@example.com', 'a much longer password');

    const usage = await cli(target, ['keys', 'create']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("required option '-n, --name <name>' not specified");
  }, 600_000);

  it('creates an organization with its Owner role and owner; the owner runs it over the API, nobody else sees it', async () => {
    const target =
      services[1] ??
      (await startService({ database: 'postgres', env: FAST, startTimeoutMs: 300_000 }).then(
        (s) => (services.push(s), s),
      ));
    const create = (...args: string[]) => cli(target, ['organizations', 'create', ...args]);
    const made = await create('Acme', '--id', 'acme', '--owner-email', 'Owner@Acme.example', '--json');
    expect(made.code, made.stderr).toBe(0);
    const tenant = JSON.parse(made.stdout);
    expect(tenant).toMatchObject({ id: 'acme', name: 'Acme', owner: { email: 'owner@acme.example', name: 'Owner' } });
    const api = new Client(target.url);
    const owner = await api.login('owner@acme.example', tenant.password);
    const orgs = ok(await api.call('GET', '/app/v1/organizations', { token: owner }));
    expect(orgs.data.map((o: { id: string }) => o.id)).toEqual(['acme']);
    const roles = ok(await api.call('GET', '/app/v1/organizations/acme/roles', { token: owner }));
    expect(roles.data).toEqual([expect.objectContaining({ id: tenant.roleId, name: 'Owner' })]);
    const project = ok(
      await api.call('POST', '/app/v1/organizations/acme/projects', { token: owner, body: { name: 'Site' } }),
      201,
    );
    ok(
      await api.call('POST', `/app/v1/organizations/acme/projects/${project.id}/api-keys`, {
        token: owner,
        body: { name: 'k' },
      }),
      201,
    );
    const admin = await api.login();
    expect((await api.call('GET', '/app/v1/organizations/acme', { token: admin })).status).toBe(404);

    // Same rules as the API, and all or nothing: a refused creation leaves no organization behind.
    const refusals: [string[], string][] = [
      [['Again', '--id', 'acme', '--owner-email', 'new@acme.example'], 'NAME_TAKEN'],
      [['Twin', '--id', 'twin', '--owner-email', 'owner@acme.example'], 'NAME_TAKEN'],
      [
        ['Weak', '--id', 'weak', '--owner-email', 'weak@acme.example', '--owner-password', 'short'],
        'VALIDATION_FAILED',
      ],
      [['Bad id', '--id', 'a/b', '--owner-email', 'bad@acme.example'], 'VALIDATION_FAILED'],
      [[' ', '--owner-email', 'blank@acme.example'], 'VALIDATION_FAILED'],
    ];
    for (const [args, code] of refusals) {
      const refused = await create(...args);
      expect(refused.code, args.join(' ')).toBe(4);
      expect(refused.stderr).toContain(code);
    }
    expect((await create('Twin', '--id', 'twin', '--owner-email', 'twin@acme.example')).code).toBe(0);
    expect((await cli(target, ['org', 'create', 'Nameless'])).code).toBe(2); // --owner-email is required
  }, 600_000);
});
