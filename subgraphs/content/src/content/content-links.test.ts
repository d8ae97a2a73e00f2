// The `reference` keyword: which values of a document are references, and which keyword values a type may hold.
import { ValidationFailedError } from '@cp/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSchema } from '../shared/json-schema';
import { assertReferenceKeywords, collectLinks } from './content-links';

const RUNS = Number(process.env.FC_RUNS ?? 100);
const SEED = Number(process.env.FC_SEED ?? 20261128);

const SCHEMA = {
  type: 'object',
  properties: {
    author: { reference: {} },
    'a/b~c': { reference: { typeIds: ['t'] } },
    hero: { reference: { to: 'asset' } },
    related: { type: 'array', items: { reference: {} } },
    pair: { type: 'array', prefixItems: [{ reference: { to: 'asset' } }, { type: 'string' }] },
    sections: { type: 'array', items: { type: 'object', properties: { link: { reference: {} } } } },
    both: { allOf: [{ reference: {} }] },
  },
};

describe('collectLinks', () => {
  it('finds references at any depth, in arrays and prefixItems, in document order, with escaped pointers', () => {
    const links = collectLinks(SCHEMA, {
      sections: [{ link: 's0' }, {}, { link: 's2' }],
      related: ['r0', 'r1'],
      author: 'a',
      'a/b~c': 'x',
      hero: 'h',
      pair: ['p0', 'not a reference'],
      both: 'b',
      components: [{ type: 'Card', props: { author: 'ignored' } }],
    });
    expect(links).toEqual([
      { path: '/author', kind: 'content', targetId: 'a' },
      { path: '/a~1b~0c', kind: 'content', targetId: 'x' },
      { path: '/hero', kind: 'asset', targetId: 'h' },
      { path: '/related/0', kind: 'content', targetId: 'r0' },
      { path: '/related/1', kind: 'content', targetId: 'r1' },
      { path: '/pair/0', kind: 'asset', targetId: 'p0' },
      { path: '/sections/0/link', kind: 'content', targetId: 's0' },
      { path: '/sections/2/link', kind: 'content', targetId: 's2' },
      { path: '/both', kind: 'content', targetId: 'b' },
    ]);
  });

  it('for any document the schema accepts, every link is a string at its pointer, and nothing else is', () => {
    const validate = jsonSchema.compile(SCHEMA);
    const id = fc.string({ minLength: 1, maxLength: 4 });
    const document = fc.record(
      {
        author: id,
        hero: id,
        related: fc.array(id, { maxLength: 3 }),
        sections: fc.array(fc.record({ link: id }, { requiredKeys: [] }), { maxLength: 3 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(document, (doc) => {
        expect(validate(doc)).toBe(true);
        const links = collectLinks(SCHEMA, doc);
        const at = (path: string) =>
          path
            .split('/')
            .slice(1)
            .reduce<unknown>((v, key) => (v as Record<string, unknown>)[key], doc);
        for (const link of links) expect(at(link.path)).toBe(link.targetId);
        const count =
          (doc.author === undefined ? 0 : 1) +
          (doc.hero === undefined ? 0 : 1) +
          (doc.related?.length ?? 0) +
          (doc.sections ?? []).filter((s) => s.link !== undefined).length;
        expect(links).toHaveLength(count);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('makes ajv require an id string where a reference stands', () => {
    const validate = jsonSchema.compile(SCHEMA);
    expect(validate({ author: 5 })).toBe(false);
    expect(validate.errors?.map((e) => [e.instancePath, e.message])).toEqual([['/author', 'must be an id (a string)']]);
  });
});

describe('assertReferenceKeywords', () => {
  const errorsOf = (schema: unknown) => {
    try {
      assertReferenceKeywords(schema);
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationFailedError);
      return ((e as ValidationFailedError).details as { errors: { path: string }[] }).errors.map((x) => x.path);
    }
  };

  it('accepts {}, {typeIds}, {to: "asset"} wherever a subschema stands, and a property named `reference`', () => {
    expect(errorsOf(SCHEMA)).toEqual([]);
    expect(errorsOf({ properties: { reference: { type: 'string' } } })).toEqual([]);
    expect(errorsOf({ $defs: { ref: { reference: {} } }, anyOf: [{ reference: { typeIds: ['a', 'b'] } }] })).toEqual(
      [],
    );
  });

  it('refuses any other member or value, naming its pointer', () => {
    expect(
      errorsOf({
        properties: {
          a: { reference: { depth: 1 } },
          b: { items: { reference: { to: 'content' } } },
          c: { reference: [] },
          d: { reference: { typeIds: [1] } },
          e: { reference: { to: 'asset', typeIds: ['x'] } },
        },
        $defs: { f: { reference: null } },
      }),
    ).toEqual([
      '/schema/properties/a/reference/depth',
      '/schema/properties/b/items/reference/to',
      '/schema/properties/c/reference',
      '/schema/properties/d/reference/typeIds',
      '/schema/properties/e/reference/typeIds',
      '/schema/$defs/f/reference',
    ]);
  });
});
