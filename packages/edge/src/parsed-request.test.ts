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

// The one parse every layer reads, and what Apollo makes of the parameters it is handed (URLSearchParams, as it reads `search`).
describe('parseUrl', () => {
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
