// Shared by bench/client-reads.mjs and bench/read-miss.mjs: the gateway as a child process, the client-read seed, the workloads.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, JWT_SECRET, ROOT, cpuSecondsOf, freePort } from './lib.mjs';

export const PROJECT = '/organizations/default/projects/default';
const ENTRIES = 20;

/**
 * Starts the built gateway and resolves once `/health` answers 200. `profileDir`: run under `--cpu-prof`; `root`:
 * another checkout's build (e.g. the code before a change) on the same machine.
 */
export async function startReadGateway(env, { profileDir, root = ROOT } = {}) {
  const port = await freePort();
  const began = performance.now();
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const flags = process.env.SERVICE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...flags, ...profile, join(root, 'apps/gateway/dist/main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      JWT_SECRET,
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_PER_HOUR: '100000000',
      // The embeddings indexer would load its model and embed the seeded entries while the first scenario runs.
      EMBEDDINGS: 'off',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error(`service exited:\n${err}`);
    if (
      await fetch(`${url}/health`).then(
        (r) => r.status === 200,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    pid: child.pid,
    /** Spawn → first 200 on /health. */
    coldStartMs: performance.now() - began,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024,
    /** CPU seconds (user + system, all threads) the gateway has used: steadier than req/s on a shared machine. */
    cpu: () => cpuSecondsOf(child.pid),
    stop: () => new Promise((r) => (exited ? r() : (child.once('exit', r), child.kill('SIGTERM')))),
  };
}

async function json(url, path, { method = 'GET', token, body } = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A content type, 20 published entries of about 2.5 KB each, an API key. */
export async function seedPublished(url) {
  const { token } = await json(url, '/app/v1/auth/login', { method: 'POST', body: ADMIN });
  const app = `/app/v1${PROJECT}`;
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      body: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  };
  const type = await json(url, `${app}/content-types`, { method: 'POST', token, body: { name: 'Article', schema } });
  await json(url, `${app}/content-types/${type.id}/publish`, { method: 'POST', token });
  const ids = [];
  for (let i = 0; i < ENTRIES; i++) {
    const content = {
      title: `Article ${i}`,
      body: `Paragraph ${i}. `.repeat(180).slice(0, 2300),
      tags: ['news', `t${i % 5}`],
    };
    const entry = await json(url, `${app}/content`, {
      method: 'POST',
      token,
      body: { typeId: type.id, name: `Article ${i}`, content },
    });
    await json(url, `${app}/content/${entry.id}/publish`, { method: 'POST', token });
    ids.push(entry.id);
  }
  const { key } = await json(url, `${app}/api-keys`, { method: 'POST', token, body: { name: 'bench' } });
  return { token, key, id: ids[0] };
}

const W3 = JSON.stringify({
  query: `{ contents(organizationId: "default", projectId: "default", limit: 20) { data { id name version content createdAt updatedAt } } }`,
});

/**
 * `W1i`: a client list of 20 entries with `include=2`, each entry referencing 3 others (a type of its own, published),
 * so the answer carries its includes. Built on the seeded articles (the targets of the first hop); answers the
 * workload's autocannon options.
 */
export async function seedIncludes(url, { token, key }) {
  const call = async (method, path, body) => {
    const res = await fetch(`${url}/app/v1${PROJECT}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const articles = (await call('GET', '/content?limit=20')).data.map((e) => e.id);
  const schema = { type: 'object', properties: { refs: { type: 'array', items: { type: 'string', reference: {} } } } };
  const type = await call('POST', '/content-types', { name: 'Linked', schema });
  await call('POST', `/content-types/${type.id}/publish`);
  for (let i = 0; i < 20; i++) {
    const refs = [0, 1, 2].map((k) => articles[(i + k * 7) % articles.length]);
    const entry = await call('POST', '/content', { typeId: type.id, name: `Linked ${i}`, content: { refs } });
    await call('POST', `/content/${entry.id}/publish`);
  }
  return { url: `${url}/api/v1${PROJECT}/content?typeId=${type.id}&limit=20&include=2`, headers: { 'x-api-key': key } };
}

/** The workloads as `[short name, title, autocannon options]`; `W1i` once `seeded.include` holds `seedIncludes`'. */
export function workloads(url, { key, token, id, include }) {
  const client = { 'x-api-key': key };
  return [
    ...(include ? [['W1i', 'W1i GET /api/v1/…/content?limit=20&include=2 (3 references each)', include]] : []),
    ['W1', 'W1 GET /api/v1/…/content?limit=20', { url: `${url}/api/v1${PROJECT}/content?limit=20`, headers: client }],
    [
      'W2',
      'W2 GET /api/v1/…/content/{id}/resolved',
      { url: `${url}/api/v1${PROJECT}/content/${id}/resolved`, headers: client },
    ],
    [
      'W3',
      'W3 GraphQL contents(limit: 20), API key',
      { url: `${url}/graphql`, method: 'POST', headers: { ...client, 'content-type': 'application/json' }, body: W3 },
    ],
    [
      'admin',
      'admin GET /app/v1/…/content?limit=20 (JWT)',
      { url: `${url}/app/v1${PROJECT}/content?limit=20`, headers: { authorization: `Bearer ${token}` } },
    ],
    [
      'W2a',
      'W2a admin GET /app/v1/…/content/{id} (JWT)',
      { url: `${url}/app/v1${PROJECT}/content/${id}`, headers: { authorization: `Bearer ${token}` } },
    ],
  ];
}
