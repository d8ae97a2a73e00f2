// Black-box differential: every path a client read can take (cache hit, miss, direct execution, the full gateway, a
// remote subgraph) answers each generated request alike, hostile query strings and bodies included.
// Reproduce with DIFF_SEED=<seed>; DIFF_RUNS raises the number of generated requests (default 60).
import { createPostgresDatabase } from '@cp/db/testing';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import {
  freePort,
  JWT_SECRET,
  spawnNode,
  startService,
  type Process,
  SUBGRAPH_SECRET,
  type TestService,
  UNLIMITED,
} from './support/service';

const SEED = Number(process.env.DIFF_SEED ?? 20261125);
const RUNS = Number(process.env.DIFF_RUNS ?? 60);

const SCOPE = 'organizationId: "default", projectId: "default"';
/** The defaults matter: a request whose `variables` one layer misses is answered with 20 items, not 1. */
const DOCUMENTS = [
  `query Q($limit: Int = 20) { contents(${SCOPE}, limit: $limit) { data { id name } } }`,
  `query Q($limit: Int = 20) { contents(${SCOPE}, limit: $limit) { data { id name } } } query Other { contentTypes(${SCOPE}) { data { name } } }`,
  `{ contents(${SCOPE}, limit: 2) { data { id } } }`,
  `query Q($limit: Int = 20) { contents(${SCOPE}, limit: $limit) { data { id name } } } mutation M { __typename }`,
];
const VARIABLES = [undefined, null, {}, { limit: 1 }, { limit: 2 }, { limit: 'one' }, [1]];
const OPERATION_NAMES = [undefined, null, 'Q', 'Other', '', 'Nope', 'Q\u0301', '🙂'];
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

interface Operation {
  document: number;
  /** `undefined`: the member is absent. */
  variables: unknown;
  operationName: unknown;
  /** `none`, an APQ extension (with its right or a wrong hash, or version 2), or another member. */
  extensions: 'none' | 'apq' | 'apqOnly' | 'apqWrongHash' | 'apqVersion2' | 'other' | 'empty';
}

interface Shape {
  transport: 'get' | 'post';
  /** Filler parameters around the GraphQL ones (GET only): 1,000+ pushed `variables` past qs's limit. */
  padding: number;
  /** Where the fillers go among the GraphQL parameters (0: before all; 1: after `query`, …). */
  paddingAt: number;
  /** A member given twice (GET: the parameter; POST: the JSON member, raw). */
  repeat?: 'variables' | 'query' | 'operationName' | 'extensions';
  /** Odd text in a filler parameter: combining marks, an astral character, an encoded lone surrogate, a NUL. */
  oddUnicode?: 'combining' | 'astral' | 'surrogate' | 'nul' | 'plus';
}

interface Generated {
  operation: Operation;
  shape: Shape;
}

const extensionsOf = (op: Operation, query: string): unknown => {
  const persistedQuery = { version: 1, sha256Hash: sha(query) };
  switch (op.extensions) {
    case 'none':
      return undefined;
    case 'apq':
    case 'apqOnly':
      return { persistedQuery };
    case 'apqWrongHash':
      return { persistedQuery: { ...persistedQuery, sha256Hash: sha(`${query} `) } };
    case 'apqVersion2':
      return { persistedQuery: { ...persistedQuery, version: 2 } };
    case 'other':
      return { tracing: true };
    case 'empty':
      return {};
  }
};

const ODD: Record<NonNullable<Shape['oddUnicode']>, string> = {
  combining: 'e%CC%81%CC%81',
  astral: '%F0%9F%99%82',
  surrogate: '%ED%A0%80',
  nul: 'a%00b',
  plus: 'a+b%2Bc',
};

/** The members of the GraphQL request, as [name, JSON-able value] (GET sends strings, POST JSON values). */
function members(op: Operation): [string, unknown][] {
  const query = DOCUMENTS[op.document];
  const extensions = extensionsOf(op, query);
  const out: [string, unknown][] = [];
  if (op.extensions !== 'apqOnly') out.push(['query', query]);
  if (op.variables !== undefined) out.push(['variables', op.variables]);
  if (op.operationName !== undefined) out.push(['operationName', op.operationName]);
  if (extensions !== undefined) out.push(['extensions', extensions]);
  return out;
}

interface Sent {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function toRequest({ operation, shape }: Generated): Sent {
  const pairs = members(operation);
  if (shape.transport === 'get') {
    const enc = encodeURIComponent;
    const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
    const params = pairs.map(([k, v]) => `${k}=${enc(text(v))}`);
    const repeated = pairs.find(([k]) => k === shape.repeat);
    if (repeated) params.push(`${repeated[0]}=${enc(text(repeated[0] === 'variables' ? { limit: 2 } : repeated[1]))}`);
    const filler = Array.from({ length: shape.padding }, (_, i) => `p${i}=1`);
    if (shape.oddUnicode) filler.push(`odd=${ODD[shape.oddUnicode]}`);
    params.splice(Math.min(shape.paddingAt, params.length), 0, ...filler);
    return { method: 'GET', path: `/graphql?${params.join('&')}`, headers: {} };
  }
  const json = pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const repeated = pairs.find(([k]) => k === shape.repeat);
  // JSON.parse keeps the last of a repeated member: every reader gets the same parsed object.
  if (repeated)
    json.unshift(`${JSON.stringify(repeated[0])}:${JSON.stringify(repeated[0] === 'variables' ? { limit: 2 } : 'x')}`);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  return { method: 'POST', path: '/graphql', headers, body: `{${json.join(',')}}` };
}

/** `weighted([x, 3], [y, 1])`: a constant drawn with those weights (plain, well-formed requests are the common case). */
const weighted = <T>(...choices: [T, number][]) =>
  fc.oneof(...choices.map(([value, weight]) => ({ weight, arbitrary: fc.constant(value) })));

const operationArb: fc.Arbitrary<Operation> = fc.record({
  document: weighted([0, 4], [1, 1], [2, 1], [3, 1]),
  variables: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(undefined, { limit: 1 }, { limit: 2 }) },
    { weight: 2, arbitrary: fc.constantFrom(...VARIABLES) },
  ),
  operationName: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(undefined, 'Q') },
    { weight: 2, arbitrary: fc.constantFrom(...OPERATION_NAMES) },
  ),
  extensions: weighted<Operation['extensions']>(
    ['none', 6],
    ['apq', 1],
    ['apqOnly', 1],
    ['apqWrongHash', 1],
    ['apqVersion2', 1],
    ['other', 1],
    ['empty', 1],
  ),
});

const shapeArb: fc.Arbitrary<Shape> = fc.record(
  {
    transport: weighted<Shape['transport']>(['get', 3], ['post', 2]),
    padding: weighted([0, 3], [3, 1], [95, 1], [101, 1], [999, 1], [1000, 3], [1200, 2]),
    // Fillers right after `query` push `variables` past qs's 1,000th parameter while `query` stays within it.
    paddingAt: weighted([0, 1], [1, 4], [2, 1], [3, 1]),
    repeat: fc.constantFrom<Shape['repeat']>('variables', 'query', 'operationName', 'extensions'),
    oddUnicode: fc.constantFrom<Shape['oddUnicode']>('combining', 'astral', 'surrogate', 'nul', 'plus'),
  },
  { requiredKeys: ['transport', 'padding', 'paddingAt'] },
);

/** Filters on the `title` of the `Page` type's documents: matches, misses, operators and refusals. */
const DOCUMENT_FILTERS = [
  'content.title=One',
  'content.title=Nobody',
  'content.title[neq]=Two',
  'content.title[in]=One,Three',
  'content.title[like]=T',
  'content.title[gte]=Three',
  'content.title[exists]=true',
  'content.title[all]=One',
  'content.nope=1',
  'sort=content.title:desc',
  'content.title[neq]=One&sort=content.title:asc&limit=1',
];
/** The `Page` type, created before any request is generated. */
let pageTypeId = '';

/** Client REST reads with the same hostile query strings. */
interface RestRead {
  path: 'content' | 'content-types';
  limit?: number;
  /** Filters on the fields inside the document, with the one type they need selected (content only). */
  document?: string;
  /** Referenced entries and assets beside the answer (`include`), valid or not. */
  include?: string;
  padding: number;
  repeatLimit: boolean;
  oddUnicode?: Shape['oddUnicode'];
}
const restArb: fc.Arbitrary<RestRead> = fc.record(
  {
    path: fc.constantFrom<RestRead['path']>('content', 'content-types'),
    limit: fc.constantFrom(1, 2, 20),
    padding: fc.constantFrom(0, 0, 50, 101, 1200),
    repeatLimit: fc.boolean(),
    oddUnicode: fc.constantFrom<Shape['oddUnicode']>('combining', 'astral', 'surrogate', 'nul', 'plus'),
    document: fc.constantFrom(...DOCUMENT_FILTERS),
    include: fc.constantFrom('0', '1', '3', '4', 'x'),
  },
  { requiredKeys: ['path', 'padding', 'repeatLimit'] },
);
function restRequest(read: RestRead): Sent {
  const params = Array.from({ length: read.padding }, (_, i) => `p${i}=1`);
  if (read.limit !== undefined) params.push(`limit=${read.limit}`);
  if (read.repeatLimit) params.push('limit=3');
  if (read.oddUnicode) params.push(`odd=${ODD[read.oddUnicode]}`);
  if (read.document && read.path === 'content') params.push(`typeId=${pageTypeId}`, read.document);
  if (read.include !== undefined) params.push(`include=${read.include}`);
  return {
    method: 'GET',
    path: `/api/v1${PROJECT}/${read.path}${params.length ? `?${params.join('&')}` : ''}`,
    headers: {},
  };
}

/** Every canonical request (plain POST and GET, no padding): sent after the generated ones, they expose a poisoned entry. */
function probes(): Sent[] {
  const out: Sent[] = [];
  for (let document = 0; document < DOCUMENTS.length; document++) {
    for (const variables of [undefined, { limit: 1 }, { limit: 2 }]) {
      for (const operationName of [undefined, 'Q']) {
        const operation: Operation = { document, variables, operationName, extensions: 'none' };
        for (const transport of ['get', 'post'] as const)
          out.push(toRequest({ operation, shape: { transport, padding: 0, paddingAt: 0 } }));
      }
    }
  }
  for (const path of ['content', 'content-types'] as const)
    for (const limit of [undefined, 1, 2, 20]) out.push(restRequest({ path, limit, padding: 0, repeatLimit: false }));
  for (const document of DOCUMENT_FILTERS)
    out.push(restRequest({ path: 'content', document, padding: 0, repeatLimit: false }));
  for (const include of ['1', '4'])
    out.push(restRequest({ path: 'content', document: DOCUMENT_FILTERS[0], include, padding: 0, repeatLimit: false }));
  return out;
}

/** What must be equal: the status, and the body apart from request ids. */
function comparable(status: number, text: string): { status: number; body: unknown } {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // compared as text
  }
  const scrub = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(scrub)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([k]) => k !== 'requestId')
              .map(([k, x]) => [k, scrub(x)]),
          )
        : v;
  return { status, body: scrub(body) };
}

describe('every read path answers alike (differential)', () => {
  const services: Process[] = [];
  let cached: TestService; // CACHE=on, subgraphs in process: hits, misses, direct execution
  let uncached: TestService; // CACHE=off: every request executed (direct reads where the plan allows)
  let remote: TestService; // CACHE=off, the content subgraph as its own service: the full gateway plans every read
  let drop: () => Promise<void>;
  let key: string;

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    const limits = UNLIMITED;
    const port = await freePort();
    const content = await spawnNode(
      'subgraphs/content/dist/main.js',
      { DATABASE_URL: db.url, JWT_SECRET, SUBGRAPH_SECRET, SUBGRAPH_PORT: String(port) },
      /subgraph content listening/,
    );
    services.push(content);
    cached = await startService({ databaseUrl: db.url, env: limits });
    [uncached, remote] = await Promise.all([
      startService({ databaseUrl: db.url, env: { ...limits, CACHE: 'off' } }),
      startService({ databaseUrl: db.url, env: { ...limits, CACHE: 'off', SUBGRAPH_URLS: `content=${content.url}` } }),
    ]);
    const api = new Client(cached.url);
    const token = await api.login();
    const call = (method: string, path: string, body?: unknown) =>
      api.call(method, `/app/v1${PROJECT}${path}`, { token, body });
    const type = await call('POST', '/content-types', {
      name: 'Page',
      schema: {
        type: 'object',
        properties: { title: { type: 'string' }, related: { type: 'array', items: { reference: {} } } },
      },
    });
    await call('POST', `/content-types/${type.body.id}/publish`);
    pageTypeId = type.body.id;
    // Each page references the ones before it: `include` has something to follow.
    const pages: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      const content = { title: name, related: [...pages] };
      const entry = await call('POST', '/content', { typeId: type.body.id, name, content });
      expect((await call('POST', `/content/${entry.body.id}/publish`)).status).toBeLessThan(300);
      pages.push(entry.body.id);
    }
    key = (await call('POST', '/api-keys', { name: 'differential' })).body.key;
    // Until the cached replica has applied the writes' events it answers BYPASS; wait for a stored answer.
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${cached.url}/api/v1${PROJECT}/content-types?limit=100`, {
        headers: { 'x-api-key': key },
      });
      await res.arrayBuffer();
      if (res.headers.get('x-cache') !== 'BYPASS') break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all([cached?.destroy(), uncached?.destroy(), remote?.destroy()]);
    await Promise.all(services.map((s) => s.stop()));
    await drop?.();
  });

  const send = async (base: string, sent: Sent) => {
    const res = await fetch(`${base}${sent.path}`, {
      method: sent.method,
      headers: { ...sent.headers, 'x-api-key': key },
      body: sent.body,
    });
    return { ...comparable(res.status, await res.text()), cache: res.headers.get('x-cache') };
  };

  // One check of `since` for the REST event routes and the GraphQL `events` query: both accept, or both refuse with 400.
  it('accepts and refuses the same `since` instants over REST and GraphQL', async () => {
    const instants = fc.sample(
      fc.oneof(
        fc
          .date({ min: new Date(-70_000_000_000_000), max: new Date(300_000_000_000_000), noInvalidDate: true })
          .map((d) => d.toISOString()),
        fc.constantFrom(
          '0001-01-01T00:00:00Z',
          '9999-12-31T23:59:59Z',
          '0000-12-31T23:59:59Z',
          '+010000-01-01T00:00:00Z',
          'yesterday',
          '',
          '2026-02-30',
          '2026-11-25',
        ),
      ),
      { seed: SEED, numRuns: 30 },
    );
    const outcomes: string[] = [];
    for (const since of instants) {
      const rest = await fetch(`${uncached.url}/api/v1${PROJECT}/events?since=${encodeURIComponent(since)}`, {
        headers: { 'x-api-key': key },
      });
      const restBody = (await rest.json()) as { error?: { code: string; message: string } };
      const graphql = await fetch(`${uncached.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          query: `query($since: String) { events(${SCOPE}, since: $since) { data { id } } }`,
          variables: { since },
        }),
      });
      const graphqlBody = (await graphql.json()) as { errors?: { message: string; extensions: { code: string } }[] };
      // The same refusal: code and message (the database's "out of range" is not the edge's answer).
      const restOutcome = rest.status === 200 ? 'ok' : `${restBody.error?.code}: ${restBody.error?.message}`;
      const graphqlOutcome = graphqlBody.errors
        ? `${graphqlBody.errors[0].extensions.code}: ${graphqlBody.errors[0].message}`
        : 'ok';
      if (restOutcome !== graphqlOutcome)
        outcomes.push(
          `since=${JSON.stringify(since)}: REST ${rest.status} ${restOutcome}, GraphQL ${graphql.status} ${graphqlOutcome}`,
        );
    }
    expect(outcomes).toEqual([]);
  });

  it(`answers ${RUNS} generated GraphQL and REST reads and every canonical read alike on every path`, async () => {
    const generated: Sent[] = fc.sample(
      fc.oneof(
        { weight: 3, arbitrary: fc.record({ operation: operationArb, shape: shapeArb }).map(toRequest) },
        { weight: 1, arbitrary: restArb.map(restRequest) },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    // The generated requests fill the cache first (a hostile one may store a wrong answer under a canonical key), the
    // canonical requests then read every such key, and the generated ones run again against entries the canonical filled.
    const sequence = [...generated, ...probes(), ...generated];
    // The generator must reach the shape that split parsers apart: `query` within the first 1,000 parameters, `variables` after.
    const overflowing = generated.filter(({ path }) => {
      const names = path
        .slice(path.indexOf('?') + 1)
        .split('&')
        .map((p) => p.split('=')[0]);
      return names.indexOf('query') !== -1 && names.indexOf('query') < 1000 && names.indexOf('variables') >= 1000;
    }).length;
    expect(overflowing).toBeGreaterThan(0);
    const mismatches = new Map<string, string[]>();
    const mismatch = (kind: string, text: string) => mismatches.set(kind, [...(mismatches.get(kind) ?? []), text]);
    const cacheOutcomes = new Map<string, number>();
    for (const [i, sent] of sequence.entries()) {
      const first = await send(cached.url, sent); // a miss, or a hit of an entry an earlier request stored
      const again = await send(cached.url, sent); // a hit when cacheable
      const plain = await send(uncached.url, sent);
      const planned = await send(remote.url, sent);
      for (const outcome of [first.cache, again.cache])
        cacheOutcomes.set(String(outcome), (cacheOutcomes.get(String(outcome)) ?? 0) + 1);
      const differs = (a: typeof first, b: typeof first) =>
        JSON.stringify([a.status, a.body]) !== JSON.stringify([b.status, b.body]);
      const path = sent.path.replace(/(?:p\d+=1&?)+/g, (run) => `[${run.split('&').filter(Boolean).length} fillers]&`);
      const label = `seed=${SEED} #${i} ${sent.method} ${path} ${sent.body ?? ''} ${JSON.stringify(sent.headers)}`;
      if (differs(first, plain))
        mismatch(
          'cache ≠ uncached',
          `${label}\n  cache (${first.cache}): ${first.status} ${JSON.stringify(first.body)}\n  uncached: ${plain.status} ${JSON.stringify(plain.body)}`,
        );
      if (differs(again, plain))
        mismatch(
          'cache (again) ≠ uncached',
          `${label}\n  cache again (${again.cache}): ${again.status} ${JSON.stringify(again.body)}\n  uncached: ${plain.status} ${JSON.stringify(plain.body)}`,
        );
      if (differs(planned, plain))
        mismatch(
          'remote subgraph ≠ in process',
          `${label}\n  remote subgraph: ${planned.status} ${JSON.stringify(planned.body)}\n  in process: ${plain.status} ${JSON.stringify(plain.body)}`,
        );
      for (const answer of [first, again, plain, planned])
        if (answer.status >= 500) mismatch('5xx', `${label}\n  ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    console.log(
      `differential seed=${SEED}: ${sequence.length} requests (${overflowing} past 1,000 parameters), x-cache ${JSON.stringify(Object.fromEntries(cacheOutcomes))}`,
    );
    // Each kind of difference, counted, with its first few requests.
    const report = [...mismatches].map(([kind, texts]) => `${texts.length}× ${kind}:\n${texts.slice(0, 6).join('\n')}`);
    expect(report.join('\n\n')).toBe('');
    // The comparison means something only if hits happened.
    expect(cacheOutcomes.get('HIT') ?? 0).toBeGreaterThan(20);
  }, 300_000);
});
