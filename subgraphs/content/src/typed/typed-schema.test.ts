// The typed schema builder over generated content types, hostile names and schemas included: it always builds a valid
// schema, names are deterministic, and no type can change how another is typed.
import fc from 'fast-check';
import { buildSchema, getNamedType, isObjectType, printSchema, printType, validateSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildTypedSchema } from './typed-schema';
import { pascalName, typeNames } from './typed-names';
import type { TypedContentType } from './typed-source';

const RUNS = Number(process.env.FC_RUNS ?? 150);
const SEED = Number(process.env.FC_SEED ?? 20261128);

const HOSTILE = [
  '',
  ' ',
  'sys',
  'name',
  'AND',
  'OR',
  '__typename',
  '__schema',
  'sys_updatedAt',
  'p_sys',
  'a.b',
  '1st',
  'é',
  '🙂',
  'Query',
  'Entry',
  'Asset',
  'JSON',
  'String',
  'Article Collection',
  'ArticleFilter',
  'article',
  'true',
  'null',
  '"""',
  '\\',
  'x'.repeat(300),
];
const nameArb = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme' }));

/** Property schemas: every shape the builder types, and junk it must turn into JSON. */
const propertyArb = (typeIds: string[]) => {
  const scalar = fc.constantFrom('string', 'integer', 'number', 'boolean').map((type) => ({ type }));
  const reference = fc.oneof(
    fc.constant({ reference: {} }),
    fc.constant({ reference: { to: 'asset' } }),
    fc.subarray([...typeIds, 'missing-type'], { minLength: 1 }).map((ids) => ({ reference: { typeIds: ids } })),
  );
  const value = fc.oneof(scalar, reference);
  return fc.oneof(
    value,
    value.map((items) => ({ type: 'array', items })),
    fc.constant({ type: ['string', 'null'] }),
    fc.constant({ type: ['string', 'integer'] }),
    fc.constant({ oneOf: [{ type: 'string' }, { type: 'integer' }] }),
    fc.constant({ type: 'object', properties: { a: { type: 'string' } } }),
    fc.constant({ type: 'array', prefixItems: [{ type: 'string' }] }),
    fc.jsonValue({ maxDepth: 2 }),
  );
};

const typesArb = fc.integer({ min: 0, max: 6 }).chain((count) => {
  const ids = Array.from({ length: count }, (_, i) => `type-${i}`);
  return fc.tuple(
    ...ids.map((id) =>
      fc.record({
        id: fc.constant(id),
        name: nameArb,
        version: fc.integer({ min: 1, max: 9 }),
        schema: fc.oneof(
          fc.dictionary(nameArb, propertyArb(ids), { maxKeys: 6 }).map((properties) => ({
            type: 'object',
            properties,
          })),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      }),
    ),
  ) as fc.Arbitrary<TypedContentType[]>;
});

/** A well-behaved type, built first: whatever follows it, its types print the same. */
const ARTICLE: TypedContentType = {
  id: 'article',
  name: 'Article',
  version: 3,
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      views: { type: 'integer' },
      hero: { reference: { to: 'asset' } },
      related: { type: 'array', items: { reference: { typeIds: ['article'] } } },
    },
  },
};
const ARTICLE_TYPES = ['Article', 'ArticleCollection', 'ArticleFilter', 'ArticleOrder'];

describe('buildTypedSchema', () => {
  it('builds a valid, printable, deterministic schema from any content types; earlier types are unaffected', () => {
    const alone = buildTypedSchema([ARTICLE]).schema;
    fc.assert(
      fc.property(typesArb, (others) => {
        const types = [ARTICLE, ...others.map((t) => ({ ...t, id: `other-${t.id}` }))];
        const built = buildTypedSchema(types);
        expect(validateSchema(built.schema)).toEqual([]);
        const sdl = printSchema(built.schema);
        // The SDL code generators read is a schema of its own, and the same one on every build.
        expect(validateSchema(buildSchema(sdl))).toEqual([]);
        expect(printSchema(buildTypedSchema(types).schema)).toBe(sdl);
        // Every content type has its own type, named as documented.
        const names = [...built.typeNames.values()];
        expect(new Set(names).size).toBe(types.length);
        for (const type of types) {
          const name = built.typeNames.get(type.id)!;
          expect(name).toMatch(/^[A-Z][_0-9A-Za-z]*$/);
          expect(isObjectType(built.schema.getType(name))).toBe(true);
          const root = name[0].toLowerCase() + name.slice(1);
          const query = built.schema.getQueryType()!.getFields();
          expect(getNamedType(query[root].type).name).toBe(name);
          expect(getNamedType(query[`${root}Collection`].type).name).toBe(`${name}Collection`);
        }
        for (const name of ARTICLE_TYPES)
          expect(printType(built.schema.getType(name)!)).toBe(printType(alone.getType(name)!));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('types properties from their JSON Schema, and renames what GraphQL can’t name', () => {
    const built = buildTypedSchema([
      ARTICLE,
      {
        id: 'odd',
        name: 'article',
        version: 1,
        schema: {
          type: 'object',
          properties: {
            sys: { type: 'string' },
            'hero image': { reference: { to: 'asset' } },
            tags: { type: 'array', items: { type: 'string' } },
            choice: { oneOf: [{ type: 'string' }] },
            author: { reference: { typeIds: ['article', 'odd'] } },
            anything: { reference: {} },
            components: { type: 'array' },
          },
        },
      },
    ]);
    expect(built.typeNames.get('odd')).toBe('Article2');
    const sdl = printType(built.schema.getType('Article2')!);
    expect(sdl).toContain('p_sys: String');
    expect(sdl).toContain('p_hero_image: Asset');
    expect(sdl).toContain('tags: [String!]');
    expect(sdl).toContain('choice: JSON');
    expect(sdl).toContain('author: Article2AuthorTarget');
    expect(sdl).toContain('anything: Entry');
    expect(sdl).toContain('components: JSON');
    expect(printType(built.schema.getType('Article2AuthorTarget')!)).toContain(
      'union Article2AuthorTarget = Article | Article2',
    );
  });
});

describe('names', () => {
  it('PascalCases a name, dropping other characters', () => {
    expect(pascalName('blog post')).toBe('BlogPost');
    expect(pascalName('3d-model')).toBe('T3dModel');
    expect(pascalName('ünïcode')).toBe('NCode');
    expect(pascalName('🙂')).toBe('Type');
  });

  it('keeps the older type’s name on a clash, including with derived and reserved names', () => {
    expect(typeNames(['Post', 'post', 'Post Collection', 'Query']).names).toEqual([
      'Post',
      'Post2',
      'PostCollection2',
      'Query2',
    ]);
  });
});
