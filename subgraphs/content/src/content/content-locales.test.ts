import { checkedLocales, localeRequest, type StoredLocale } from '@cp/graphql';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentsToValidate, localizedDocument, mergeLocalized, reshapeLocalized } from './content-locales';
import { validateDocument } from './content-validation';

const runs = { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: Number(process.env.FC_RUNS ?? 200) };
const POOL = ['en', 'de', 'de-CH', 'fr', 'fr-CA', 'it', 'ja'];
const KEYS = ['title', 'body', 'slug'];
const PLAIN = ['price', 'sku'];

/** A project's locales: codes from the pool, the first the default, each other one's fallback any earlier code or none. */
const locales = fc.shuffledSubarray(POOL, { minLength: 1 }).chain((codes) =>
  fc
    .tuple(...codes.map((_, i) => (i === 0 ? fc.constant(undefined) : fc.option(fc.nat(i - 1), { nil: undefined }))))
    .map((fallbacks) =>
      codes.map<StoredLocale>((code, i) => ({
        code,
        default: i === 0,
        fallback: fallbacks[i] === undefined ? null : codes[fallbacks[i]!],
      })),
    ),
);

const value = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant({ nested: true }));
/** A stored document: each localized key a map over some codes of the pool (a removed locale's values included). */
const stored = fc.record(
  Object.fromEntries([
    ...KEYS.map((k) => [
      k,
      fc.option(fc.dictionary(fc.constantFrom(...POOL), value, { minKeys: 1 }), { nil: undefined }),
    ]),
    ...PLAIN.map((k) => [k, fc.option(value, { nil: undefined })]),
  ]),
  { requiredKeys: [] },
) as fc.Arbitrary<Record<string, unknown>>;

/** The value of `key` in `code`, resolved by hand: walk the fallbacks until a locale has one. */
function byHand(list: StoredLocale[], document: Record<string, unknown>, key: string, code: string): unknown {
  const values = document[key] as Record<string, unknown> | undefined;
  for (let at: string | null = code; at !== null; at = list.find((l) => l.code === at)!.fallback) {
    if (values && Object.hasOwn(values, at)) return values[at];
  }
  return undefined;
}

describe('localized documents', () => {
  it('a read in locale X answers, property by property, the value found by walking X’s fallbacks by hand', () => {
    fc.assert(
      fc.property(locales, stored, fc.nat(), (list, document, pick) => {
        const code = list[pick % list.length].code;
        const read = localizedDocument(document, KEYS, localeRequest(list, code));
        for (const key of KEYS) expect(read[key]).toEqual(byHand(list, document, key, code));
        for (const key of PLAIN) expect(read[key]).toEqual(document[key]);
        expect(Object.keys(read).every((k) => k in document)).toBe(true);
      }),
      runs,
    );
  });

  it('a write in locale X never changes another locale’s values, and reads back as written', () => {
    fc.assert(
      fc.property(locales, stored, fc.nat(), stored, (list, current, pick, written) => {
        const code = list[pick % list.length].code;
        const request = localeRequest(list, code);
        // What a client sends in one locale: plain values for the localized properties (null removes one).
        const input = Object.fromEntries(
          Object.entries(written).map(([k, v]) => [k, KEYS.includes(k) ? (v ? Object.values(v)[0] : null) : v]),
        );
        const next = mergeLocalized(current, input, KEYS, request);
        for (const key of KEYS) {
          for (const other of POOL.filter((c) => c !== code))
            expect((next[key] as Record<string, unknown> | undefined)?.[other]).toEqual(
              (current[key] as Record<string, unknown> | undefined)?.[other],
            );
          const own = (next[key] as Record<string, unknown> | undefined)?.[code];
          expect(own).toEqual(input[key] ?? undefined);
        }
        for (const key of PLAIN) expect(next[key]).toEqual(input[key]);
      }),
      runs,
    );
  });

  it('`*` reads the current locales’ maps, and writing them back keeps exactly those', () => {
    fc.assert(
      fc.property(locales, stored, (list, document) => {
        const all = localeRequest(list, '*');
        const read = localizedDocument(document, KEYS, all);
        const codes = list.map((l) => l.code);
        for (const key of KEYS) {
          const map = (read[key] ?? {}) as Record<string, unknown>;
          expect(Object.keys(map).every((c) => codes.includes(c))).toBe(true);
          for (const c of codes) expect(map[c]).toEqual((document[key] as Record<string, unknown> | undefined)?.[c]);
        }
        expect(localizedDocument(mergeLocalized({}, read, KEYS, all), KEYS, all)).toEqual(read);
      }),
      runs,
    );
  });

  it('validation sees the default locale’s document, and each other locale’s own values in place', () => {
    const list = checkedLocales([{ code: 'en', default: true }, { code: 'de', fallback: 'en' }, { code: 'fr' }]);
    const document = { title: { en: 'Hi', de: 'Hallo' }, body: { fr: 'Corps' }, price: 3 };
    const seen = documentsToValidate(document, KEYS, localeRequest(list));
    expect(seen).toEqual([
      { code: 'en', document: { title: 'Hi', price: 3 }, own: [] },
      { code: 'de', document: { title: 'Hallo', price: 3 }, own: ['title'] },
      { code: 'fr', document: { title: 'Hi', price: 3, body: 'Corps' }, own: ['body'] },
    ]);
  });

  it('refuses a locale’s values that break a rule across properties, naming the locale', () => {
    // A price of 1,000 or more needs a currency: the German price does, the English one doesn't.
    const schema = {
      type: 'object',
      properties: { price: { type: 'number', localized: true }, currency: { type: 'string' } },
      if: { required: ['price'], properties: { price: { minimum: 1000 } } },
      then: { required: ['currency'] },
    };
    const request = localeRequest(checkedLocales([{ code: 'en', default: true }, { code: 'de' }]));
    const check = (price: Record<string, number>) => () =>
      validateDocument({ price }, schema, new Map(), { keys: ['price'], locale: request });
    expect(check({ en: 10 })).not.toThrow();
    expect(check({ en: 10, de: 5000 })).toThrow(
      expect.objectContaining({
        details: expect.objectContaining({
          errors: expect.arrayContaining([
            expect.objectContaining({ path: '/currency', message: expect.stringContaining('locale de') }),
          ]),
        }),
      }),
    );
  });

  it('a type version that localizes a property keeps its value as the default locale’s, and back', () => {
    const there = reshapeLocalized({ title: 'Hi', price: 3 }, [], ['title'], 'en');
    expect(there).toEqual({ title: { en: 'Hi' }, price: 3 });
    expect(reshapeLocalized({ ...there, title: { en: 'Hi', de: 'Hallo' } }, ['title'], [], 'en')).toEqual({
      title: 'Hi',
      price: 3,
    });
  });
});

describe('project locales', () => {
  it('generated lists are accepted as given, and each chain ends at a locale without a fallback', () => {
    fc.assert(
      fc.property(locales, (list) => {
        expect(checkedLocales(list)).toEqual(list);
        for (const { code } of list) {
          const { chain } = localeRequest(list, code);
          expect(chain[0]).toBe(code);
          expect(list.find((l) => l.code === chain.at(-1))!.fallback).toBeNull();
        }
      }),
      runs,
    );
  });

  it('refuses cycles, two defaults, unknown fallbacks and malformed tags, naming each', () => {
    const refused = (list: Parameters<typeof checkedLocales>[0]) => {
      try {
        checkedLocales(list);
      } catch (err) {
        return (err as { details: { errors: { path: string }[] } }).details.errors.map((e) => e.path);
      }
      throw new Error('accepted');
    };
    expect(
      refused([
        { code: 'en', default: true },
        { code: 'de', fallback: 'fr' },
        { code: 'fr', fallback: 'de' },
      ]),
    ).toEqual(['/locales/1/fallback', '/locales/2/fallback']);
    expect(
      refused([
        { code: 'en', default: true },
        { code: 'de', default: true },
      ]),
    ).toEqual(['/locales']);
    expect(
      refused([
        { code: 'en', default: true },
        { code: 'de', fallback: 'xx' },
      ]),
    ).toEqual(['/locales/1/fallback']);
    expect(refused([{ code: 'not a tag', default: true }])).toEqual(['/locales/0/code']);
    expect(refused([{ code: 'en', default: true }, { code: 'EN' }])).toEqual(['/locales/1/code']);
    expect(checkedLocales([{ code: 'de-ch', default: true }])).toEqual([
      { code: 'de-CH', fallback: null, default: true },
    ]);
  });

  it('an unknown locale in a request is 400 naming `locale`', () => {
    const list = checkedLocales([{ code: 'en', default: true }]);
    expect(() => localeRequest(list, 'de')).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', details: expect.objectContaining({ parameter: 'locale' }) }),
    );
    expect(localeRequest(list, 'EN').code).toBe('en');
  });
});
