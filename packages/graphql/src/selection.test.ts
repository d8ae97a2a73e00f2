import { buildSchema, execute, parse, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selects } from './selection';

const schema = buildSchema(`
  type Item { id: ID, compiled: String }
  type List { data: [Item] }
  type Query { list: List }
`);

/** What `selects(info, ['data', 'compiled'])` answers inside `Query.list` for a query text. */
async function seen(query: string): Promise<boolean | undefined> {
  let answer: boolean | undefined;
  await execute({
    schema,
    document: parse(query),
    rootValue: {
      list: (_: unknown, __: unknown, info: GraphQLResolveInfo) => (
        (answer = selects(info, ['data', 'compiled'])),
        { data: [] }
      ),
    },
  });
  return answer;
}

describe('selects', () => {
  it('follows plain fields, inline fragments and fragment spreads', async () => {
    expect(await seen('{ list { data { id compiled } } }')).toBe(true);
    expect(await seen('{ list { data { id } } }')).toBe(false);
    expect(await seen('{ list { ... on List { data { ... on Item { compiled } } } } }')).toBe(true);
    expect(await seen('{ list { ...L } } fragment L on List { data { ...I } } fragment I on Item { compiled }')).toBe(
      true,
    );
    expect(await seen('{ list { ...L } } fragment L on List { data { id } }')).toBe(false);
  });

  it('counts a conditional or aliased selection as selected', async () => {
    expect(await seen('{ list { data { compiled @skip(if: true) } } }')).toBe(true);
    expect(await seen('{ list { data { code: compiled } } }')).toBe(true);
  });
});
