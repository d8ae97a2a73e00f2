// The typed client example (examples/typed-client): generated from schema/api.graphql, built, and run against the real
// service — a typed query, mutation and subscription, as a client would consume the API.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
