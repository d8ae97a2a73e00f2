import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { graphqlSearch, MAX_QUERY_PARAMETERS, parseUrl } from './parsed-request';

const runs = { seed: 20261125, numRuns: Number(process.env.FC_RUNS ?? 300) };
/** Text as clients send it: any well-formed Unicode but NUL (which the edge refuses). */
const text = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !s.includes('\u0000'));
const names = fc.uniqueArray(
  text.filter((s) => s !== '' && !/[[\]]/.test(s)),
  { maxLength: MAX_QUERY_PARAMETERS },
);
const params = names.chain((keys) => fc.tuple(...keys.map((k) => fc.tuple(fc.constant(k), text))));

/** The path rule, segment by segment, as written: what `parseUrl` must refuse whichever way it checks a path. */
function refusedPath(path: string): Record<string, string> | undefined {
  for (const raw of path.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { segment: raw.slice(0, 200) };
    }
    if (segment === '.' || segment === '..') return { segment };
    // A lone surrogate does not survive UTF-8: it comes back as U+FFFD.
    const unicode = Buffer.from(segment, 'utf8').toString('utf8') === segment;
    // eslint-disable-next-line no-control-regex -- control characters are what the rule refuses
    if (/[\u0000-\u001f\u007f]/.test(segment) || !unicode) return { segment: raw.slice(0, 200) };
  }
  return undefined;
}

/** Paths from pieces that matter to the rule: separators, dots, percent-encodings (valid or not), controls, Unicode. */
const paths = fc
  .array(
    fc.oneof(
      fc.constantFrom('/', '.', '..', '%', '%2e', '%2E%2e', '%2F', '%00', '%7f', '%ED%A0%80', '%E2%82%AC', '%zz', '?'),
      fc.constantFrom('\u0000', '\u001f', '\u007f', ' ', '~', 'é', '\ud800', '😀', '+'),
      fc.string({ unit: 'binary-ascii', maxLength: 4 }),
      fc.stringMatching(/^[a-z0-9-]{1,8}$/),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => `/${pieces.join('')}`.split('?')[0]);

// The one parse every layer reads, and what Apollo makes of the parameters it is handed (URLSearchParams, as it reads `search`).
describe('parseUrl', () => {
  it('refuses exactly the paths with a segment that is `.`/`..`, badly encoded, a control character or not Unicode', () => {
    fc.assert(
      fc.property(paths, (path) => {
        const refused = refusedPath(path);
        let thrown: unknown;
        try {
          expect(parseUrl(path).path).toBe(path);
        } catch (err) {
          thrown = err;
        }
        if (refused === undefined) expect(thrown).toBeUndefined();
        else expect(thrown).toMatchObject({ code: 'BAD_REQUEST', details: refused });
      }),
      { ...runs, numRuns: Number(process.env.FC_RUNS ?? 2000) },
    );
  });

  it('reads every admitted query string as URLSearchParams (Apollo’s parser) does', () => {
    fc.assert(
      fc.property(params, (pairs) => {
        const search = new URLSearchParams(pairs).toString();
        const { query } = parseUrl(`/graphql?${search}`);
        expect({ ...query }).toEqual(Object.fromEntries(pairs));
        const forApollo = new URLSearchParams(graphqlSearch(query));
        for (const name of ['query', 'operationName', 'variables', 'extensions'])
          expect(forApollo.get(name)).toBe(query[name] ?? null);
      }),
      runs,
    );
  });

  it('refuses more than 100 parameters and a name given twice, wherever they stand', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_QUERY_PARAMETERS + 1, max: 3000 }), fc.nat(), (count, at) => {
        const pairs = Array.from({ length: count }, (_, i) => `p${i}=1`);
        pairs.splice(at % count, 0, 'variables=%7B%7D');
        expect(() => parseUrl(`/graphql?${pairs.join('&')}`)).toThrow(
          expect.objectContaining({ code: 'BAD_REQUEST', details: { limit: 'queryParameters', max: 100 } }),
        );
      }),
      { ...runs, numRuns: 50 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom('query', 'variables', 'operationName', 'extensions', 'limit'),
        fc.nat({ max: 20 }),
        (name, gap) => {
          const pairs = [
            `${name}=a`,
            ...Array.from({ length: gap }, (_, i) => `p${i}=1`),
            `${encodeURIComponent(name)}=b`,
          ];
          expect(() => parseUrl(`/x?${pairs.join('&')}`)).toThrow(
            expect.objectContaining({ code: 'BAD_REQUEST', details: { parameter: name } }),
          );
        },
      ),
      { ...runs, numRuns: 50 },
    );
  });
});
