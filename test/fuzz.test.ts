// Black-box fuzzing: seeded, bounded random requests over every route family; any 5xx fails the test.
// Reproduce a failure with FUZZ_SEED=<seed> (printed with every failing request); FUZZ_REQUESTS raises the count.
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { ROOT } from './support/service';
import { useService } from './support/setup';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 3000);
/** A small pool: the machine is shared, and throughput comes from the many cheap requests, not from parallelism. */
const POOL = 8;
const REQUEST_TIMEOUT_MS = 20_000;

/** mulberry32: a tiny seeded PRNG, so every run with one seed sends the same requests in the same order. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof prng>;

interface RestRoute {
  method: string;
  path: string;
}
/** The REST route table as the subgraphs declare it (read from their build output: metadata, not a stand-in). */
function restRoutes(): { family: 'app' | 'api'; route: RestRoute }[] {
  const require = createRequire(__filename);
  const out: { family: 'app' | 'api'; route: RestRoute }[] = [];
  for (const subgraph of ['access', 'content', 'components', 'assets']) {
    const mod = require(join(ROOT, `subgraphs/${subgraph}/dist/routes.js`)) as Record<
      string,
      Record<string, { app?: RestRoute; api?: RestRoute }>
    >;
    for (const table of Object.values(mod)) {
      if (!table || typeof table !== 'object') continue;
      for (const byFamily of Object.values(table)) {
        if (byFamily?.app) out.push({ family: 'app', route: byFamily.app });
        if (byFamily?.api) out.push({ family: 'api', route: byFamily.api });
      }
    }
  }
  // Deleting or renaming the one organization and project every other request addresses would only shrink coverage.
  return out.filter(({ route }) => !(route.method !== 'GET' && /:(organizationId|projectId)$/.test(route.path)));
}

const STRINGS = [
  'default',
  '',
  'x',
  '.',
  '..',
  '%00',
  '%E0%A4%A',
  '%ED%A0%80',
  '%2e%2e',
  '%2F',
  '%25',
  '%ff',
  'null',
  'true',
  '-1',
  '0',
  '1',
  '99999999999',
  '1e400',
  'NaN',
  '00000000-0000-0000-0000-000000000000',
  '6d3f1c2e-8b1a-4c55-9a0e-2f1b3c4d5e6f',
  '%F0%9F%98%80',
  'a%20b',
  "'%3B--",
  '%3Cscript%3E',
  'x'.repeat(300),
  '[]',
  '{}',
  '%5B%5D',
  '9999-12-31T00:00:00Z',
  '%2B275760-09-13T00:00:00Z',
  '1970-01-01',
  'published',
  'draft',
  'updatedAt:asc',
];
const QUERY_NAMES = [
  'limit',
  'page',
  'lastKey',
  'afterKey',
  'status',
  'sort',
  'search',
  'typeId',
  'type',
  'contentType',
  'tags',
  'tag',
  'folderId',
  'since',
  'recursive',
  'isTemplate',
  'query',
  'resourceId',
  'x',
];
const RESOURCE_TYPES = [
  'content',
  'content-types',
  'components',
  'packages',
  'assets',
  'tags',
  'saved-searches',
  'folders',
  'nope',
  '..',
  '%00',
];
const MEMBERS = [
  'name',
  'description',
  'typeId',
  'content',
  'schema',
  'filter',
  'sort',
  'page',
  'limit',
  'version',
  'status',
  'tags',
  'folderId',
  'parentId',
  'metadata',
  'email',
  'password',
  'permissions',
  'roleId',
  'url',
  'eventTypes',
  'secret',
  'active',
  'layoutComponentId',
  'componentIdsAllowList',
  'templateContentIds',
  'targetTypeVersion',
  'expiresIn',
  'projectId',
  'query',
  'search',
  'type',
  'color',
  'isTemplate',
  'resourceType',
  'resourceId',
  'action',
  'at',
  'components',
  'children',
  'props',
  'input',
];

function jsonString(r: Rng): string {
  return r.pick([
    '',
    'x',
    'default',
    'a\u0000b',
    '\ud800',
    '\udfff x',
    'é',
    '😀',
    '<script>',
    '../../etc/passwd',
    'x'.repeat(2000),
    '9999-12-31T23:59:59Z',
    'published',
    'view',
    'https://example.com/hook',
    'http://127.0.0.1:1/',
    '{}',
  ]);
}

function jsonValue(r: Rng, depth = 0): unknown {
  const k = r.int(depth > 3 ? 6 : 9);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, 0.5, 99999999999]);
    case 3:
    case 4:
    case 5:
      return jsonString(r);
    case 6:
      return Array.from({ length: r.int(4) }, () => jsonValue(r, depth + 1));
    default:
      return jsonObject(r, depth + 1);
  }
}

function jsonObject(r: Rng, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = r.int(5); i > 0; i--) out[r.chance(0.9) ? r.pick(MEMBERS) : jsonString(r)] = jsonValue(r, depth + 1);
  return out;
}

const FILTER_FIELDS = [
  'type',
  'typeId',
  'tags',
  'status',
  'name',
  'createdAt',
  'updatedAt',
  'metadata.author',
  'x',
  'constructor',
  'toString',
];
const FILTER_OPERATORS = [
  'eq',
  'neq',
  'in',
  'all',
  'any',
  'gte',
  'lte',
  'gt',
  'lt',
  'like',
  '$ne',
  '$or',
  'regex',
  'constructor',
];
const FILTER_VALUES = [
  'published',
  'toString',
  '2026-01-01T00:00:00Z',
  '2026-13-45',
  '%',
  '\\',
  '_%\\',
  'x',
  '',
  '%x%',
  '50%\\',
];

/** Search bodies: the real filter fields and operators with any JSON as values (generic bodies rarely reach them). */
function searchBody(r: Rng): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (let i = 1 + r.int(3); i > 0; i--) {
    const ops: Record<string, unknown> = {};
    for (let j = 1 + r.int(2); j > 0; j--) {
      const value = r.chance(0.4) ? r.pick(FILTER_VALUES) : jsonValue(r);
      ops[r.pick(FILTER_OPERATORS)] = r.chance(0.2)
        ? [value, r.pick(FILTER_VALUES)]
        : r.chance(0.1)
          ? { $ne: value }
          : value;
    }
    filter[r.pick(FILTER_FIELDS)] = r.chance(0.9) ? ops : jsonValue(r);
  }
  const out: Record<string, unknown> = { filter };
  if (r.chance(0.3))
    out.sort = r.chance(0.5) ? [{ field: 'updatedAt', order: r.pick(['asc', 'desc', 'x']) }] : jsonValue(r);
  if (r.chance(0.3)) out.page = r.pick([1, 2, 0, -1, 2 ** 31 - 1, 2 ** 31, 1.5, 'x']);
  if (r.chance(0.3)) out.limit = r.pick([1, 20, 100, 101, 0, 'x']);
  if (r.chance(0.2)) out.search = jsonString(r);
  return out;
}

function searchRequest(r: Rng, admin: Record<string, string>, key: Record<string, string>): FuzzRequest {
  const json = { 'content-type': 'application/json' };
  const input = searchBody(r);
  const k = r.int(5);
  if (k === 0)
    return {
      method: 'POST',
      path: `/app/v1${PROJECT}/content`,
      headers: { ...admin, ...json },
      body: JSON.stringify(input),
    };
  if (k === 1)
    return {
      method: 'POST',
      path: `/api/v1${PROJECT}/content/search`,
      headers: { ...key, ...json },
      body: JSON.stringify(input),
    };
  if (k === 2)
    return {
      method: 'POST',
      path: `/app/v1${PROJECT}/saved-searches`,
      headers: { ...admin, ...json },
      body: JSON.stringify({ name: `fuzz ${r.int(1e9)}`, query: input }),
    };
  const query =
    'query($input: SearchContentInput) { searchContent(organizationId: "default", projectId: "default", input: $input) { data { id } pagination { total } } }';
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...(k === 3 ? admin : key), ...json },
    body: JSON.stringify({ query, variables: { input } }),
  };
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** SSE: only the status and headers are awaited. */
  stream?: boolean;
  family?: string;
}

function queryString(r: Rng): string {
  const parts: string[] = [];
  for (let i = r.int(4); i > 0; i--) {
    const name = r.pick(QUERY_NAMES);
    const shape = r.int(10);
    const value = r.pick(STRINGS);
    if (shape === 0) parts.push(`${name}[]=${value}`);
    else if (shape === 1) parts.push(`${name}=${value}&${name}=${r.pick(STRINGS)}`);
    else if (shape === 2) parts.push(`${name}[a]=${value}`);
    else if (shape === 3) parts.push(name);
    else parts.push(`${name}=${value}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function fillPath(r: Rng, path: string): string {
  return path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    if ((name === 'organizationId' || name === 'projectId') && r.chance(0.85)) return 'default';
    return r.pick(STRINGS);
  });
}

function body(r: Rng): { headers: Record<string, string>; body?: string } {
  const k = r.int(12);
  const json = { 'content-type': 'application/json' };
  if (k === 0) return { headers: {} };
  if (k === 1) return { headers: json, body: '{"a":'.repeat(1200) + '1' + '}'.repeat(1200) };
  if (k === 2)
    return {
      headers: json,
      body: r.pick(['{', '[]', 'null', '"x"', '1', '{"a":1,}', '\u0000', '{"a":"\\ud800"}', '{"name":"\\u0000"}']),
    };
  if (k === 3)
    return {
      headers: { 'content-type': r.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) },
      body: 'name=x',
    };
  return { headers: json, body: JSON.stringify(jsonObject(r)) };
}

const GRAPHQL_DOCUMENTS = [
  '{ __typename }',
  '{ __schema { queryType { name } } }',
  '{ contents(organizationId: "default", projectId: "default", limit: 99999999999) { data { id } } }',
  '{ tags(organizationId: "default", projectId: "default", search: "\\u0000") { data { id } } }',
  'query { a: __typename b: __typename',
  'mutation { __typename }',
  '{ ' + 'a: __typename '.repeat(40) + '}',
  '{ x { y { z { w { v { u { t } } } } } } }',
  'subscription { events(projectId: "default") { id } }',
];

interface Schema {
  fields: {
    name: string;
    operation: 'query' | 'mutation';
    args: { name: string; type: string; named: string }[];
    selection: string;
  }[];
  enums: Map<string, string[]>;
}

function graphqlRequest(r: Rng, schema: Schema, auth: Record<string, string>): FuzzRequest {
  let payload: unknown;
  if (r.chance(0.25) || schema.fields.length === 0) {
    payload = { query: r.pick(GRAPHQL_DOCUMENTS), variables: r.chance(0.3) ? jsonObject(r) : undefined };
  } else {
    const field = r.pick(schema.fields);
    const args = field.args.filter((a) => a.type.endsWith('!') || r.chance(0.5));
    const decl = args.length ? `(${args.map((a) => `$${a.name}: ${a.type}`).join(', ')})` : '';
    const call = args.length ? `(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
    const variables: Record<string, unknown> = {};
    for (const a of args) {
      const enumValues = schema.enums.get(a.named);
      if (a.named === 'Int' || a.named === 'Float')
        variables[a.name] = r.pick([1, 0, -1, 100, 101, 2 ** 31, 1e300, 'x', null]);
      else if (a.named === 'Boolean') variables[a.name] = r.pick([true, false, 'true', 0]);
      else if (enumValues) variables[a.name] = r.chance(0.7) ? r.pick(enumValues) : jsonString(r);
      else if (a.named === 'ID' || a.named === 'String') variables[a.name] = r.chance(0.5) ? 'default' : jsonString(r);
      else variables[a.name] = r.chance(0.5) ? jsonObject(r) : jsonValue(r);
    }
    payload = { query: `${field.operation} Fuzz${decl} { ${field.name}${call} ${field.selection} }`, variables };
  }
  if (r.chance(0.15)) {
    const p = payload as { query: string };
    return {
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent(p.query)}${r.chance(0.3) ? '&query=x' : ''}`,
      headers: auth,
    };
  }
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  };
}

/** Multipart bodies, well-formed or not: cut before the closing boundary, wrong boundary, missing file, huge fields. */
function multipart(r: Rng): { headers: Record<string, string>; body: string } {
  const boundary = 'FUZZ' + r.int(1000);
  const part = (name: string, value: string, filename?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${value}\r\n`;
  const parts = [
    r.chance(0.8)
      ? part(
          'file',
          r.pick(['hello', '<svg></svg>', '\u0000\u0001', '{"a":1}', '<html>']),
          r.pick(['a.txt', '../../x', 'x\u0000y', '', 'é.png']),
        )
      : '',
    r.chance(0.4) ? part('tags', r.pick(['a,b', '[1]', '["x"]', '[', '\u0000'])) : '',
    r.chance(0.3) ? part('metadata', r.pick(['{}', '[]', '{', '{"a":"\\u0000"}', 'null'])) : '',
    r.chance(0.3) ? part('folderId', r.pick(['null', '', 'x', '\u0000', '6d3f1c2e-8b1a-4c55-9a0e-2f1b3c4d5e6f'])) : '',
  ].join('');
  const end = r.pick([`--${boundary}--\r\n`, '', `--${boundary}`, '--OTHER--\r\n']);
  const type = r.pick([
    `multipart/form-data; boundary=${boundary}`,
    'multipart/form-data',
    `multipart/form-data; boundary=${boundary}x`,
    'application/json',
  ]);
  return { headers: { 'content-type': type }, body: parts + end };
}

function generate(r: Rng, ctx: FuzzContext): FuzzRequest {
  const req = generateRequest(r, ctx);
  req.family ??= req.path.startsWith('/graphql')
    ? 'graphql'
    : req.path.startsWith('/cdn')
      ? 'cdn'
      : req.path.includes('/events')
        ? 'events'
        : req.path.includes('/auth/login')
          ? 'login'
          : req.path.endsWith('/assets') && req.method === 'POST'
            ? 'upload'
            : 'rest';
  return req;
}

function generateRequest(r: Rng, ctx: FuzzContext): FuzzRequest {
  const admin = { authorization: `Bearer ${ctx.token}` };
  const key = { 'x-api-key': ctx.apiKey };
  const family = r.int(100);
  if (family < 8) return { ...searchRequest(r, admin, key), family: 'search' };
  if (family < 40) {
    const { family: f, route } = r.pick(ctx.routes);
    const auth = f === 'app' ? admin : key;
    const withBody =
      route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH' ? body(r) : { headers: {} };
    // Another method on a route's path (never DELETE or PUT: on the project's own path they would remove or rename it).
    const method = r.chance(0.05) ? r.pick(['GET', 'POST', 'PATCH', 'OPTIONS', 'HEAD']) : route.method;
    const bodyless = method === 'GET' || method === 'HEAD';
    return {
      method,
      path: `/${f}/v1${fillPath(r, route.path)}${queryString(r)}`,
      headers: { ...auth, ...withBody.headers },
      body: bodyless ? undefined : withBody.body,
    };
  }
  if (family < 55) return graphqlRequest(r, ctx.schema, r.chance(0.8) ? admin : key);
  if (family < 68) {
    const f = r.chance(0.5) ? 'app' : 'api';
    const resource = r.int(3);
    const path =
      resource === 0
        ? '/events'
        : resource === 1
          ? `/${r.pick(RESOURCE_TYPES)}/events`
          : `/${r.pick(RESOURCE_TYPES)}/${r.pick(STRINGS)}/events`;
    const stream = r.chance(0.3);
    const headers: Record<string, string> = {
      ...(f === 'app' ? admin : key),
      ...(stream ? { accept: 'text/event-stream' } : {}),
    };
    if (stream && r.chance(0.5)) headers['last-event-id'] = r.pick(['x', '0', '99999999999', 'ZZZZ', '\u00e9']);
    return {
      method: 'GET',
      path: `/${f}/v1/organizations/${fillPath(r, ':organizationId')}/projects/${fillPath(r, ':projectId')}${path}${queryString(r)}`,
      headers,
      stream,
    };
  }
  if (family < 78) {
    const real = ctx.cdnPaths.length && r.chance(0.5);
    const path = real
      ? r.pick(ctx.cdnPaths)
      : `/cdn/${fillPath(r, ':organizationId')}/${fillPath(r, ':projectId')}/${r.pick(['assets', 'component-assets', 'x'])}/${r.pick(STRINGS)}/${r.pick(STRINGS)}`;
    const headers: Record<string, string> = {};
    if (r.chance(0.5))
      headers.range = r.pick([
        'bytes=0-1',
        'bytes=1000-2000',
        'bytes=-1',
        'bytes=5-2',
        'bytes=0-0,2-3',
        'bytes=x',
        'items=0-1',
        'bytes=99999999999999999999-',
      ]);
    if (r.chance(0.2)) headers['if-none-match'] = r.pick(['*', '"x"', 'W/"y"', '']);
    return { method: r.chance(0.9) ? 'GET' : 'HEAD', path, headers };
  }
  if (family < 98) {
    const target = r.chance(0.5)
      ? '/assets'
      : `/components/${ctx.componentId && r.chance(0.8) ? ctx.componentId : r.pick(STRINGS)}/assets`;
    const mp = multipart(r);
    return { method: 'POST', path: `/app/v1${PROJECT}${target}`, headers: { ...admin, ...mp.headers }, body: mp.body };
  }
  const b = body(r);
  // Well-formed sign-ins cost a password hash each (seconds on a loaded machine): a few, the rest malformed.
  const creds = r.chance(0.25)
    ? JSON.stringify({ email: r.pick(['admin@example.com', 'x', 'a\u0000', '']), password: jsonString(r) })
    : b.body;
  return {
    method: 'POST',
    path: '/app/v1/auth/login',
    headers: { 'content-type': 'application/json', ...b.headers },
    body: creds,
  };
}

interface FuzzContext {
  token: string;
  apiKey: string;
  componentId?: string;
  cdnPaths: string[];
  routes: ReturnType<typeof restRoutes>;
  schema: Schema;
}

/**
 * node:http sends the path verbatim: fetch would resolve `..` and `%2e%2e` segments first (and so reach other routes).
 * A request sent on a kept-alive socket the server was closing at that moment fails with ECONNRESET before the server
 * read it: it is sent again once, on a new connection, as Node's documentation advises (`request.reusedSocket`). A
 * reset of a request the server did receive fails again there, and counts.
 */
function send(baseUrl: string, req: FuzzRequest, retried = false): Promise<{ status: number; text: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: req.headers,
        timeout: REQUEST_TIMEOUT_MS,
        ...(retried ? { agent: false } : {}),
      },
      (res) => {
        if (req.stream && res.headers['content-type']?.startsWith('text/event-stream')) {
          res.destroy();
          return resolve({ status: res.statusCode!, text: '' });
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (request.reusedSocket && err.code === 'ECONNRESET' && !retried)
        return send(baseUrl, req, true).then(resolve, reject);
      reject(err);
    });
    request.end(req.body);
  });
}

const describeRequest = (i: number, req: FuzzRequest) =>
  `seed=${SEED} #${i} ${req.method} ${req.path} headers=${JSON.stringify({ ...req.headers, authorization: req.headers.authorization && 'Bearer <admin>', 'x-api-key': req.headers['x-api-key'] && '<key>' })}` +
  (req.body ? ` body=${JSON.stringify(String(req.body).slice(0, 300))}` : '');

/** Query and mutation fields with their argument types and a small selection, from introspection. */
async function loadSchema(baseUrl: string, token: string): Promise<Schema> {
  const query = `{ __schema { types { kind name enumValues { name } fields { name type { ...T } } }
    queryType { fields { name args { name type { ...T } } type { ...T } } }
    mutationType { fields { name args { name type { ...T } } type { ...T } } } } }
    fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }`;
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const data = (await res.json()).data.__schema;
  type T = { kind: string; name: string | null; ofType?: T | null };
  const print = (t: T): string =>
    t.kind === 'NON_NULL' ? `${print(t.ofType!)}!` : t.kind === 'LIST' ? `[${print(t.ofType!)}]` : t.name!;
  const named = (t: T): T => (t.ofType ? named(t.ofType) : t);
  const types = new Map<string, { kind: string; fields?: { name: string; type: T }[] }>(
    data.types.map((t: { name: string }) => [t.name, t]),
  );
  const enums = new Map<string, string[]>(
    data.types
      .filter((t: { kind: string }) => t.kind === 'ENUM')
      .map((t: { name: string; enumValues: { name: string }[] }) => [t.name, t.enumValues.map((v) => v.name)]),
  );
  const selection = (t: T): string => {
    const type = types.get(named(t).name!);
    if (!type?.fields) return '';
    const scalars = type.fields
      .filter((f) => ['SCALAR', 'ENUM'].includes(named(f.type).kind))
      .slice(0, 3)
      .map((f) => f.name);
    const data = type.fields.find((f) => f.name === 'data' && named(f.type).kind === 'OBJECT');
    const inner = data
      ? `data { ${
          (types.get(named(data.type).name!)?.fields ?? [])
            .filter((f) => named(f.type).kind === 'SCALAR')
            .slice(0, 3)
            .map((f) => f.name)
            .join(' ') || '__typename'
        } }`
      : '';
    return `{ ${[...scalars, inner].filter(Boolean).join(' ') || '__typename'} }`;
  };
  const risky =
    /^(deleteOrganization|deleteProject|updateOrganization|updateProject|updateUser|deleteUser|deleteRole|updateRole)$/;
  const fields: Schema['fields'] = [];
  for (const [operation, root] of [
    ['query', data.queryType],
    ['mutation', data.mutationType],
  ] as const) {
    for (const f of root?.fields ?? []) {
      if (f.name.startsWith('_') || risky.test(f.name)) continue;
      fields.push({
        name: f.name,
        operation,
        args: f.args.map((a: { name: string; type: T }) => ({
          name: a.name,
          type: print(a.type),
          named: named(a.type).name!,
        })),
        selection: selection(f.type),
      });
    }
  }
  return { fields, enums };
}

describe('fuzzing every route family', () => {
  const fx = useService({
    env: {
      RATE_LIMIT_PER_MINUTE: '10000000',
      RATE_LIMIT_PER_HOUR: '100000000',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10000000',
    },
  });

  it(`answers ${TOTAL} seeded random requests without a single 5xx`, async () => {
    const base = `/app/v1${PROJECT}`;
    const call = (method: string, path: string, b?: unknown) => fx.api.call(method, path, { token: fx.token, body: b });
    const apiKey = (await call('POST', `${base}/api-keys`, { name: 'fuzz' })).body.key;
    const source = `export function metadata() { return { title: 'F', description: 'd' }; }\nexport default () => '<b>f</b>';`;
    let component = await call('POST', `${base}/components`, { name: 'Fuzz', type: 'view', content: source });
    for (let i = 0; i < 10 && component.status !== 201; i++)
      component = await call('POST', `${base}/components`, { name: 'Fuzz', type: 'view', content: source });
    const upload = new FormData();
    upload.append('file', new Blob([Buffer.from('fuzz bytes')]), 'f.txt');
    const asset = await (
      await fetch(`${fx.service.url}${base}/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.token}` },
        body: upload,
      })
    ).json();
    const ctx: FuzzContext = {
      token: fx.token,
      apiKey,
      componentId: component.body?.id,
      cdnPaths: asset?.url ? [new URL(asset.url).pathname] : [],
      routes: restRoutes(),
      schema: await loadSchema(fx.service.url, fx.token),
    };
    expect(ctx.routes.length).toBeGreaterThan(50);
    expect(ctx.schema.fields.length).toBeGreaterThan(50);

    // Requests are generated up front from the seed, so their order (and each request) is independent of timing.
    const r = prng(SEED);
    const requests = Array.from({ length: TOTAL }, () => generate(r, ctx));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const timing: Record<string, { n: number; ms: number }> = {};
    const began = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const i = next++;
        const req = requests[i];
        const started = Date.now();
        try {
          const res = await send(fx.service.url, req);
          const t = (timing[req.family!] ??= { n: 0, ms: 0 });
          t.n++;
          t.ms += Date.now() - started;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 401 && process.env.FUZZ_DEBUG)
            console.log('401', i, describeRequest(i, req), res.text.slice(0, 200));
          if (res.status >= 500) failures.push(`${describeRequest(i, req)} → ${res.status} ${res.text.slice(0, 300)}`);
        } catch (e) {
          failures.push(`${describeRequest(i, req)} → ${(e as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: POOL }, worker));
    const perFamily = Object.entries(timing)
      .map(([f, t]) => `${f} ${t.n}×${Math.round(t.ms / t.n)}ms`)
      .join(', ');
    console.log(
      `fuzz seed=${SEED}: ${TOTAL} requests in ${Date.now() - began} ms (${perFamily}), statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    if (failures.length)
      console.error(`${failures.slice(0, 50).join('\n')}\n…service output tail:\n${fx.service.output().slice(-4000)}`);
    expect(failures).toEqual([]);
    expect(fx.service.child.exitCode).toBeNull();
    expect((await fx.api.call('GET', '/health')).status).toBe(200);
  }, 300_000);
});
