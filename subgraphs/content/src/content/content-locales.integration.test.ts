// Filters on a localized property, as SQL on a real PostgreSQL: they match the value read through the locale's
// fallback chain, and an `eq` still probes the published projection's document index among many entries.
import { localeRequest, type StoredLocale } from '@cp/graphql';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import type { FilterQuery, QBFilterQuery } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDatabase } from '../index';
import { listWhere } from './content-query';
import { localizedDocument } from './content-locales';
import type { Content } from './content.entity';
import { PublishedContent } from './published-content.entity';

const SCHEMA = {
  type: 'object',
  properties: { slug: { type: 'string', localized: true }, rank: { type: 'integer', localized: true } },
};
const LOCALES: StoredLocale[] = [
  { code: 'en', fallback: null, default: true },
  { code: 'de', fallback: 'en', default: false },
  { code: 'de-CH', fallback: 'de', default: false },
];
const ROWS = 20_000;
const scope = { organizationId: 'loc-org', projectId: 'loc-project' };

describe('localized filters on PostgreSQL', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase('postgres', [contentDatabase]);
    // Every entry has English; every second German; every third Swiss German (rank follows the same pattern).
    await db.orm.em.getConnection().execute(`insert into published_content ("id", "organization_id", "project_id",
        "type_id", "type_version", "package_version", "version", "name", "is_template", "tags", "metadata",
        "created_by_id", "created_at", "updated_at", "search_vector", "content")
      select 'loc-' || i, 'loc-org', 'loc-project', 'loc-type', 1, '0.0.0', 1, 'Page ' || i, false, '[]', '{}', 'u',
        now(), now(), ''::tsvector,
        jsonb_build_object(
          'slug', jsonb_strip_nulls(jsonb_build_object('en', 'page-' || i,
            'de', case when i % 2 = 0 then 'seite-' || i end, 'de-CH', case when i % 3 = 0 then 'siite-' || i end)),
          'rank', jsonb_strip_nulls(jsonb_build_object('en', i % 10, 'de', case when i % 2 = 0 then i % 7 end)))
      from generate_series(1, ${ROWS}) i`);
    await db.orm.em.getConnection().execute('analyze published_content');
  }, 60_000);
  afterAll(() => db?.destroy());

  const where = (code: string, filter: Record<string, unknown>) =>
    ({
      $and: listWhere(scope, { typeId: 'loc-type', filter }, 'published', SCHEMA, localeRequest(LOCALES, code).chain),
    }) as FilterQuery<Content>;
  const query = (code: string, filter: Record<string, unknown>) =>
    db.orm.em
      .fork()
      .createQueryBuilder(PublishedContent, 'c')
      .select(['id', 'content'])
      .where(where(code, filter) as QBFilterQuery<PublishedContent>)
      .getKnexQuery()
      .toSQL();

  it('matches exactly the entries whose value, read through the chain, passes', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['de-CH', { 'content.slug': { eq: 'seite-4' } }], // 4: German, no Swiss German
      ['de-CH', { 'content.slug': { eq: 'seite-6' } }], // 6: Swiss German shadows it
      ['de-CH', { 'content.slug': { in: ['page-5', 'siite-9', 'page-9'] } }],
      ['de', { 'content.slug': { like: 'seite-12' } }],
      ['de', { 'content.rank': { gte: 6 }, 'content.slug': { like: 'e-10' } }],
      ['en', { 'content.rank': { eq: 3 }, 'content.slug': { like: 'page-10' } }],
      ['de-CH', { 'content.rank': { neq: 0 }, 'content.slug': { like: 'ite-1' } }],
      ['de-CH', { 'content.slug': { exists: true }, 'content.rank': { lt: 1 } }],
    ];
    for (const [code, filter] of cases) {
      const { sql, bindings } = query(code, filter);
      const rows: { id: string; content: Record<string, unknown> }[] = await db.orm.em
        .getConnection()
        .execute(sql, [...bindings]);
      // The same filter by hand, on every entry read in the locale.
      const everything: { id: string; content: Record<string, unknown> }[] = await db.orm.em
        .getConnection()
        .execute(`select id, content from published_content where project_id = 'loc-project'`);
      const request = localeRequest(LOCALES, code);
      const [[field, ops]] = Object.entries(filter).slice(0, 1);
      const expected = everything.filter(({ content }) => {
        const read = localizedDocument(content, ['slug', 'rank'], request);
        return Object.entries(filter).every(([f, op]) => passes(read[f.slice('content.'.length)], op as Ops));
      });
      expect(rows.map((r) => r.id).sort(), `${code} ${field} ${JSON.stringify(ops)}`).toEqual(
        expected.map((r) => r.id).sort(),
      );
    }
  });

  it('runs an `eq` in a two-step fallback on the document index, not a scan of the type', async () => {
    const { sql, bindings } = query('de-CH', { 'content.slug': { eq: 'seite-4' } });
    const plan: { 'QUERY PLAN': string }[] = await db.orm.em.getConnection().execute(`explain ${sql}`, [...bindings]);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/published_content_document_index/);
    expect(text).not.toMatch(/Seq Scan/);
  });
});

type Ops = Record<string, unknown>;

/** The operators of the cases above, as a reader would apply them to one value. */
function passes(value: unknown, ops: Ops): boolean {
  return Object.entries(ops).every(([op, arg]) => {
    switch (op) {
      case 'eq':
        return value === arg;
      case 'neq':
        return value !== arg;
      case 'in':
        return (arg as unknown[]).includes(value);
      case 'like':
        return typeof value === 'string' && value.toLowerCase().includes(String(arg).toLowerCase());
      case 'exists':
        return (value !== undefined) === arg;
      case 'gte':
        return typeof value === 'number' && value >= (arg as number);
      case 'lt':
        return typeof value === 'number' && value < (arg as number);
      default:
        throw new Error(op);
    }
  });
}
