// The typed client example (examples/typed-client): generated from schema/api.graphql, built, and run against the real
// service — a typed query, mutation and subscription, as a client would consume the API; and its `project/` part,
// generated from one project's typed SDL and run with an API key.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { ADMIN, ROOT, startService, type TestService } from './support/service';

const run = promisify(execFile);
const EXAMPLE = join(ROOT, 'examples/typed-client');

let service: TestService;

beforeAll(async () => {
  service = await startService();
}, 120_000);

afterAll(() => service?.destroy());

it('generates typed documents, compiles, and runs a query, a mutation and a subscription against the service', async () => {
  // Codegen + tsc: an operation that doesn't match the committed schema fails here.
  await run(process.execPath, [join(ROOT, 'node_modules/@graphql-codegen/cli/esm/bin.js'), '--config', 'codegen.ts'], {
    cwd: EXAMPLE,
  });
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: EXAMPLE });
  const { stdout } = await run(process.execPath, [join(EXAMPLE, 'dist/main.js')], {
    cwd: EXAMPLE,
    env: { PATH: process.env.PATH ?? '', CP_URL: service.url, CP_EMAIL: ADMIN.email, CP_PASSWORD: ADMIN.password },
    timeout: 60_000,
  });
  const out = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(out.organizations).toContain('default');
  expect(out.tag).toMatchObject({ name: expect.stringMatching(/^typed-client-/), color: '#3366ff' });
  expect(out.event).toMatchObject({ type: 'tags.created', resourceType: 'tags', resourceId: out.tag.id });
}, 180_000);

it('generates types from a project’s typed SDL, compiles, and runs a typed query with an API key', async () => {
  const client = new Client(service.url);
  const token = await client.login();
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await client.call(method, `/app/v1${PROJECT}${path}`, { token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const publishedType = async (name: string, properties: unknown) => {
    const id = (await admin('POST', '/content-types', { name, schema: { type: 'object', properties } })).id;
    await admin('POST', `/content-types/${id}/publish`);
    return id as string;
  };
  const entry = async (typeId: string, name: string, content: unknown) => {
    const id = (await admin('POST', '/content', { typeId, name, content })).id;
    await admin('POST', `/content/${id}/publish`);
    return id as string;
  };
  const author = await publishedType('Author', { fullName: { type: 'string' } });
  const article = await publishedType('Article', {
    title: { type: 'string' },
    rating: { type: 'integer' },
    author: { reference: { typeIds: [author] } },
  });
  const ada = await entry(author, 'ada', { fullName: 'Ada' });
  await entry(article, 'a', { title: 'Low', rating: 1, author: ada });
  await entry(article, 'b', { title: 'High', rating: 5, author: ada });
  await entry(article, 'c', { title: 'Mid', rating: 3 });
  const key = (await admin('POST', '/api-keys', { name: 'typed-client' })).key as string;
  const project = join(EXAMPLE, 'project');
  const sdl = await client.call('GET', `/api/v1${PROJECT}/graphql/schema.graphql`, { apiKey: key });
  expect(sdl.status).toBe(200);
  await writeFile(join(project, 'schema.graphql'), sdl.body as string);
  await run(
    process.execPath,
    [join(ROOT, 'node_modules/@graphql-codegen/cli/esm/bin.js'), '--config', 'project/codegen.ts'],
    {
      cwd: EXAMPLE,
    },
  );
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'project/tsconfig.json'], {
    cwd: EXAMPLE,
  });
  const { stdout } = await run(process.execPath, [join(project, 'dist/project/src/main.js')], {
    cwd: EXAMPLE,
    env: { PATH: process.env.PATH ?? '', CP_URL: service.url, CP_API_KEY: key },
    timeout: 60_000,
  });
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({
    total: 2,
    articles: [
      { title: 'High', rating: 5, author: 'Ada' },
      { title: 'Mid', rating: 3, author: null },
    ],
  });
}, 180_000);
