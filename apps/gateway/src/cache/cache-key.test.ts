// Cache keys: one key per answer (equivalent spellings share it), and never one key for requests whose answers differ.
import fc from 'fast-check';
import { parse, print } from 'graphql';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cacheKey, graphqlKey, restKey } from './client-cache';
import { graphqlRequestKey } from './graphql-key';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

/** A query document as tokens: fields with arguments and sub-selections, optionally named. */
const name = fc.constantFrom('a', 'b', 'c', 'items', 'node');
const argument = fc.option(
  fc.integer({ min: -5, max: 5 }).map((n) => ['(', 'x', ':', String(n), ')']),
  { nil: [] },
);
const subSelection = fc.option(
  fc.uniqueArray(name, { minLength: 1, maxLength: 3 }).map((s) => ['{', ...s, '}']),
  {
    nil: [],
  },
);
const field: fc.Arbitrary<string[]> = fc.tuple(name, argument, subSelection).map(([n, a, s]) => [n, ...a, ...s]);
const query = fc
  .tuple(fc.option(fc.constantFrom('Q', 'Other'), { nil: undefined }), fc.array(field, { minLength: 1, maxLength: 4 }))
  .map(([op, fields]) => ['query', ...(op ? [op] : []), '{', ...fields.flat(), '}']);
/** What GraphQL ignores between tokens: spaces, tabs, line breaks, commas, comments. */
const ignored = fc.constantFrom(' ', '\n', '\t', ',', ' # a comment, {not} a field\n', ',\n  ', '\r\n');
const spelled = (tokens: string[]) =>
  fc
    .array(ignored, { minLength: tokens.length, maxLength: tokens.length })
    .map((gaps) => tokens.map((t, i) => gaps[i] + t).join(''));
const values = fc.dictionary(fc.constantFrom('x', 'y', 'id'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
const variables = fc.option(values, { nil: undefined });

const operationName = fc.option(fc.constantFrom('Q', 'Other'), { nil: undefined });
const post = (q: string, extra: Record<string, unknown> = {}) => graphqlRequestKey('POST', { query: q, ...extra });

describe('graphqlRequestKey', () => {
  it('gives every spelling of one document (spacing, commas, comments) the same key', () => {
    fc.assert(
      fc.property(
        query.chain((t) => fc.tuple(spelled(t), spelled(t))),
        variables,
        ([one, other], vars) => {
          const key = post(one, { variables: vars });
          expect(key).toBeDefined();
          expect(post(other, { variables: vars })).toBe(key);
        },
      ),
      runs,
    );
  });

  it('gives different documents, variables or operation names different keys', () => {
    fc.assert(
      fc.property(query, query, variables, variables, (a, b, va, vb) => {
        const [da, db] = [a.join(' '), b.join(' ')];
        if (print(parse(da)) !== print(parse(db))) expect(post(da)).not.toBe(post(db));
        if (JSON.stringify(va ?? null) !== JSON.stringify(vb ?? null)) {
          expect(post(da, { variables: va })).not.toBe(post(da, { variables: vb }));
        }
      }),
      runs,
    );
    const two = 'query A { a } query B { a }';
    expect(post(two, { operationName: 'A' })).not.toBe(post(two, { operationName: 'B' }));
    // "" names no operation (Apollo refuses it): never keyed, and never the key of the only operation.
    expect(post('query A { a }', { operationName: '' })).toBeUndefined();
  });

  it('reads GET parameters as Apollo does: the same request over GET and POST shares a key', () => {
    fc.assert(
      fc.property(query, variables, operationName, (tokens, vars, opName) => {
        const q = tokens.join(' ');
        const get: Record<string, string> = { query: q, ...(vars ? { variables: JSON.stringify(vars) } : {}) };
        if (opName) get.operationName = opName;
        expect(graphqlRequestKey('GET', get)).toBe(post(q, { variables: vars, operationName: opName }));
      }),
      runs,
    );
  });

  it('never keys a mutation, a subscription, a syntax error or a member Apollo refuses', () => {
    for (const source of [
      { query: 'mutation { a }' },
      { query: 'subscription { a }' },
      { query: 'query A { a } mutation B { a }', operationName: 'B' },
      { query: 'query A { a } query B { a }' },
      { query: '{ a' },
      { query: '{ a }', variables: [1] },
      { query: '{ a }', operationName: 3 },
      { query: '{ a }', extensions: { other: 1 } },
    ]) {
      expect(graphqlRequestKey('POST', source), JSON.stringify(source)).toBeUndefined();
    }
    expect(graphqlRequestKey('GET', { query: '{ a }', variables: 'not json' })).toBeUndefined();
    expect(graphqlRequestKey('PUT', { query: '{ a }' })).toBeUndefined();
  });
});

describe('automatic persisted queries', () => {
  const apq = (sha256Hash: string, version = 1) => ({ persistedQuery: { version, sha256Hash } });
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');

  it('maps a registered hash to its document’s key; an unknown or wrong hash is never keyed', () => {
    let run = 0;
    fc.assert(
      fc.property(query, variables, (tokens, vars) => {
        // A document no earlier run registered: the hash is unknown until this request registers it.
        const q = `${tokens.join(' ')} # run ${run++}`;
        const hash = sha(q);
        expect(graphqlRequestKey('POST', { extensions: apq(hash), variables: vars })).toBeUndefined();
        expect(graphqlRequestKey('POST', { query: q, extensions: apq(sha(`${q} `)) })).toBeUndefined();
        const registered = graphqlRequestKey('POST', { query: q, extensions: apq(hash), variables: vars });
        expect(registered).toBe(post(q, { variables: vars }));
        expect(graphqlRequestKey('POST', { extensions: apq(hash), variables: vars })).toBe(registered);
        const get = { extensions: JSON.stringify(apq(hash)), ...(vars ? { variables: JSON.stringify(vars) } : {}) };
        expect(graphqlRequestKey('GET', get)).toBe(registered);
        expect(graphqlRequestKey('POST', { extensions: apq(hash, 2) })).toBeUndefined();
      }),
      { ...runs, numRuns: Math.ceil(runs.numRuns / 2) },
    );
  });
});

describe('the whole key (project, language, request, Accept)', () => {
  // Ids, language tags and header values never hold NUL (the edge refuses it), the key's separator.
  const part = fc.string({ maxLength: 8 }).filter((s) => !s.includes('\u0000'));
  const request = (q: string, accept: string | undefined) =>
    ({ method: 'POST', headers: accept === undefined ? {} : { accept }, body: { query: q } }) as never;

  it('differs whenever the project, the language, the request or its Accept differs', () => {
    type Parts = { project: string; lang: string; query: string[]; accept?: string };
    const parts = fc.record({ project: part, lang: part, query, accept: fc.option(part, { nil: undefined }) });
    const key = ({ project, lang, query: q, accept }: Parts) =>
      cacheKey(project, lang, graphqlKey(request(q.join(' '), accept))!);
    const normal = (p: Parts) => JSON.stringify([p.project, p.lang, print(parse(p.query.join(' '))), p.accept ?? '']);
    fc.assert(
      fc.property(parts, parts, fc.constantFrom<keyof Parts>('project', 'lang', 'query', 'accept'), (a, b, member) => {
        const changed = { ...a, [member]: b[member] };
        expect(key(changed) === key(a)).toBe(normal(changed) === normal(a));
      }),
      runs,
    );
  });

  const urlPart = fc.stringMatching(/^[a-z0-9=&%/]{0,12}$/);

  it('keys a REST read by its whole URL, query string included', () => {
    fc.assert(
      fc.property(urlPart, urlPart, urlPart, part, (path, qa, qb, project) => {
        const [a, b] = [`/api/v1/${path}?${qa}`, `/api/v1/${path}?${qb}`];
        expect(cacheKey(project, 'en', restKey(a)) === cacheKey(project, 'en', restKey(b))).toBe(qa === qb);
        expect(cacheKey(project, 'en', restKey(a))).not.toBe(cacheKey(project, 'de', restKey(a)));
      }),
      runs,
    );
  });
});
