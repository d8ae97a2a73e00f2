// What a request's fingerprint covers, and what a stored answer leaves out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, type OperationDefinitionNode } from 'graphql';
import { fingerprintOf, secretPaths, withoutSecrets } from './idempotency';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

interface Parts {
  method: string;
  url: string;
  ifMatch?: string;
  body: string;
}

/** A request as the middleware reads it: method, the URL with its query, headers, the body as the reader kept it. */
function fingerprint({ method, url, ifMatch, body }: Parts, mode: 'raw' | 'parsed' = 'raw') {
  const req = {
    method,
    originalUrl: url,
    header: (name: string) => (name === 'if-match' ? ifMatch : undefined),
    rawBody: Buffer.from(body),
    body: mode === 'parsed' ? JSON.parse(body) : undefined,
  };
  return fingerprintOf(req as never, { body: mode });
}

const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
const parts: fc.Arbitrary<Parts> = fc.record({
  method: fc.constantFrom('POST', 'PUT'),
  url: fc
    .tuple(fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined }))
    .map(([p, q]) => (q === undefined ? `/app/v1${p}` : `/app/v1${p}?${q}`)),
  ifMatch: fc.option(fc.constantFrom('"1"', '"2"', 'W/"1"', '*'), { nil: undefined }),
  body: json,
});

describe('fingerprintOf', () => {
  it('is equal for equal requests and differs when the method, path, query, If-Match or body differs', async () => {
    const change = fc.constantFrom<keyof Parts>('method', 'url', 'ifMatch', 'body');
    await fc.assert(
      fc.asyncProperty(parts, parts, change, async (a, b, member) => {
        expect(await fingerprint(a)).toBe(await fingerprint({ ...a }));
        const changed = { ...a, [member]: b[member] };
        fc.pre(changed[member] !== a[member]);
        expect(await fingerprint(changed)).not.toBe(await fingerprint(a));
      }),
      runs,
    );
  });

  it('covers the query string, not only the path', async () => {
    const a = { method: 'POST', url: '/app/v1/things?dryRun=true', body: '{}' };
    expect(await fingerprint(a)).not.toBe(await fingerprint({ ...a, url: '/app/v1/things?dryRun=false' }));
    expect(await fingerprint(a, 'parsed')).not.toBe(await fingerprint({ ...a, body: '{"a":1}' }, 'parsed'));
  });
});

describe('withoutSecrets', () => {
  const SECRETS = ['key', 'token', 'secret'];
  const restPaths = SECRETS.map((name) => [name]);
  const member = fc.string({ maxLength: 6 }).filter((k) => !SECRETS.includes(k) && k !== '__proto__');
  const secret = fc.option(fc.string(), { nil: undefined });
  /** An answer without secrets, and the secrets it is sent with. */
  const answer = fc.tuple(fc.dictionary(member, fc.jsonValue({ maxDepth: 2 })), secret, secret, secret);
  /** What a JSON round trip makes of a value (-0 becomes 0). */
  const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));
  type Answer = [Record<string, unknown>, string | undefined, string | undefined, string | undefined];
  const withSecrets = ([rest, ...values]: Answer) => ({
    ...rest,
    ...Object.fromEntries(SECRETS.flatMap((name, i) => (values[i] === undefined ? [] : [[name, values[i]]]))),
  });

  it('drops a REST answer’s `key`, `token` and `secret` strings, and nothing else', () => {
    fc.assert(
      fc.property(answer, (parts) => {
        expect(JSON.parse(withoutSecrets(JSON.stringify(withSecrets(parts)), restPaths))).toEqual(asJson(parts[0]));
      }),
      runs,
    );
  });

  /**
   * A selection of a mutation's answer: leaves (some of them secret fields), nested objects and lists, each under an
   * alias or not, inline or in a fragment. Response keys are unique within an object, as valid operations' are.
   */
  interface Selection {
    field: string;
    alias?: string;
    via: 'inline' | 'fragment' | 'none';
    list: boolean;
    children?: Selection[];
  }
  const selection: fc.Arbitrary<Selection[]> = fc.letrec<{ set: Selection[]; one: Selection }>((tie) => ({
    one: fc.record(
      {
        field: fc.constantFrom('id', 'name', 'key', 'token', 'secret', 'webhook', 'apiKey'),
        alias: fc.constantFrom('id', 'name', 'key', 'token', 'secret', 'value', 'apiKey'),
        via: fc.constantFrom<Selection['via']>('none', 'none', 'inline', 'fragment'),
        list: fc.boolean(),
        children: fc.option(tie('set'), { nil: undefined, depthSize: 'small' }),
      },
      { requiredKeys: ['field', 'via', 'list'] },
    ),
    set: fc.uniqueArray(tie('one'), { minLength: 1, maxLength: 4, selector: (s) => s.alias ?? s.field }),
  })).set;

  let fragmentCount = 0;
  /** The operation's text for a selection, with its named fragments (one per `via: fragment`). */
  const text = (set: Selection[], fragments: string[]): string =>
    set
      .map((s) => {
        const field = `${s.alias ? `${s.alias}: ` : ''}${s.field}${s.children ? ` { ${text(s.children, fragments)} }` : ''}`;
        if (s.via === 'inline') return `... on Thing { ${field} }`;
        if (s.via === 'fragment') {
          const name = `F${fragmentCount++}`;
          fragments.push(`fragment ${name} on Thing { ${field} }`);
          return `...${name}`;
        }
        return field;
      })
      .join(' ');
  /** The answer to a selection (secret leaves hold `SECRET…`), and what must be kept of it. */
  const answerTo = (set: Selection[], keep: boolean): Record<string, unknown> =>
    Object.fromEntries(
      set.flatMap((s) => {
        const key = s.alias ?? s.field;
        const value = (n: number) =>
          s.children ? answerTo(s.children, keep) : SECRETS.includes(s.field) ? `SECRET ${n}` : `${key} ${n}`;
        if (!s.children && SECRETS.includes(s.field) && keep) return [];
        return [[key, s.list ? [value(1), value(2)] : value(1)]];
      }),
    );

  it('drops every secret field of a GraphQL mutation’s answer, by its alias, in fragments and lists, and nothing else', () => {
    fc.assert(
      fc.property(selection, (set) => {
        const fragments: string[] = [];
        const document = parse(`mutation M { ${text(set, fragments)} } ${fragments.join(' ')}`);
        const operation = document.definitions[0] as OperationDefinitionNode;
        const stored = withoutSecrets(JSON.stringify({ data: answerTo(set, false) }), secretPaths(document, operation));
        expect(stored).not.toContain('SECRET');
        expect(JSON.parse(stored)).toEqual({ data: answerTo(set, true) });
      }),
      runs,
    );
  });

  it('refuses, at once, fragments that would make the walk visit 2ⁿ selections', () => {
    // Each fragment spreads the next twice: 2³⁰ selections from about a kilobyte of text.
    const depth = 30;
    const fragments = Array.from({ length: depth }, (_, i) =>
      i === depth - 1
        ? `fragment F${i} on T { key }`
        : `fragment F${i} on T { a: x { ...F${i + 1} } b: x { ...F${i + 1} } }`,
    );
    const document = parse(`mutation { m { ...F0 } } ${fragments.join(' ')}`);
    const started = Date.now();
    expect(() => secretPaths(document, document.definitions[0] as OperationDefinitionNode)).toThrow(/too much/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('keeps a non-string secret member (an id, a number, null) and answers that are not JSON', () => {
    expect(JSON.parse(withoutSecrets('{"key":3,"token":null}', restPaths))).toEqual({ key: 3, token: null });
    expect(withoutSecrets('not json', restPaths)).toBe('not json');
  });
});
