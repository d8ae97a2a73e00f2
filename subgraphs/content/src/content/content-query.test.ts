// Search filters: each value reaching the ORM is a scalar or a Date, and anything else is a 400 naming field and operator.
import { AppError } from '@cp/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchWhere } from './content-query';

/** Every leaf value of a condition tree: objects other than Dates and arrays are operators, never values. */
function leaves(node: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) node.forEach((n) => leaves(n, out));
  else if (node && typeof node === 'object' && !(node instanceof Date))
    Object.values(node).forEach((n) => leaves(n, out));
  else out.push(node);
  return out;
}
/** Operator keys used anywhere in a condition tree. */
function operators(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => operators(n, out));
  else if (node && typeof node === 'object' && !(node instanceof Date)) {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('$')) out.add(key);
      operators(value, out);
    }
  }
  return out;
}

const FIELDS = [
  'type',
  'typeId',
  'tags',
  'status',
  'name',
  'createdAt',
  'updatedAt',
  'metadata.author',
  'constructor',
  'toString',
  '__proto__',
];
const OPS = ['eq', 'neq', 'in', 'all', 'any', 'gte', 'lte', 'gt', 'lt', 'like', '$ne', '$or', 'constructor'];
const SAFE_OPERATORS = new Set(['$contains', '$not', '$ne', '$in', '$or', '$ilike', '$gte', '$lte', '$gt', '$lt']);

describe('searchWhere', () => {
  it('builds the specification operators', () => {
    expect(
      searchWhere({ name: { like: 'Quant' }, tags: { any: ['a', 'b'], all: ['c'] }, status: { eq: 'published' } }),
    ).toEqual([
      { name: { $ilike: '%Quant%' } },
      { $or: [{ tags: { $contains: ['a'] } }, { tags: { $contains: ['b'] } }] },
      { tags: { $contains: ['c'] } },
      { status: 'published' },
    ]);
    expect(searchWhere({ createdAt: { gte: '2026-01-01T00:00:00Z' } })).toEqual([
      { createdAt: { $gte: new Date('2026-01-01T00:00:00Z') } },
    ]);
    expect(searchWhere({ name: { like: '%end' }, tags: { in: [] } })).toEqual([
      { name: { $ilike: '%end' } },
      { id: { $in: [] } },
    ]);
    // Without `%` a value is a literal substring; with it, the caller's pattern (a final lone backslash is refused).
    expect(searchWhere({ name: { like: 'a_b\\' } })).toEqual([{ name: { $ilike: '%a\\_b\\\\%' } }]);
    expect(searchWhere({ name: { like: '50%\\\\' } })).toEqual([{ name: { $ilike: '50%\\\\' } }]);
    expect(() => searchWhere({ name: { like: '50%\\' } })).toThrowError(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });

  it('refuses operator objects, wrong types and inapplicable operators with BAD_REQUEST', () => {
    const bad: Record<string, unknown>[] = [
      { name: { eq: { $ne: 1 } } },
      { name: { in: [{ $ne: 1 }] } },
      { name: { neq: [1, 2] } },
      { typeId: { gt: [1] } },
      { createdAt: { gt: 5 } },
      { createdAt: { gt: true } },
      { createdAt: { in: ['x'] } },
      { tags: { like: 'x' } },
      { tags: { eq: { a: 1 } } },
      { status: { eq: 'toString' } },
      { status: { like: 'draft' } },
      { 'metadata.author': { eq: { $gt: '' } } },
      { toString: { eq: 'x' } },
      { name: { like: null } },
    ];
    for (const filter of bad) {
      expect(() => searchWhere(filter), JSON.stringify(filter)).toThrowError(
        expect.objectContaining({
          code: 'BAD_REQUEST',
          details: expect.objectContaining({ field: expect.any(String) }),
        }),
      );
    }
  });

  it('for any JSON filter: either a 400, or conditions whose values are strings or Dates and whose operators are ours', () => {
    const filter = fc.dictionary(
      fc.constantFrom(...FIELDS),
      fc.oneof(fc.dictionary(fc.constantFrom(...OPS), fc.jsonValue({ maxDepth: 3 })), fc.jsonValue({ maxDepth: 2 })),
    );
    fc.assert(
      fc.property(filter, (f) => {
        let where: unknown;
        try {
          where = searchWhere(f as Record<string, unknown>);
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).code).toBe('BAD_REQUEST');
          return;
        }
        for (const leaf of leaves(where)) expect(typeof leaf === 'string' || leaf instanceof Date).toBe(true);
        for (const op of operators(where)) expect(SAFE_OPERATORS.has(op)).toBe(true);
      }),
      { numRuns: 2000, seed: 20261124 },
    );
  });
});
