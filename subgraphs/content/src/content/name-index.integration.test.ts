// The `like` filter's trigram index on both databases: present, free of a pending list, and chosen for `ilike`.
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDatabase } from '../index';

describe.each(['postgres', 'pglite'] as const)('content name trigram index on %s', (kind) => {
  let db: TestDatabase;
  const sql = (text: string) => db.orm.em.getConnection().execute(text);

  beforeAll(async () => {
    db = await openTestDatabase(kind, [contentDatabase]);
  });
  afterAll(() => db?.destroy());

  it('is a GIN trigram index with fastupdate off, so new names are searchable through the index at once', async () => {
    const [index] = await sql(
      `select pg_get_indexdef(to_regclass('content_name_trgm_index')) as def, (select reloptions from pg_class where oid = to_regclass('content_name_trgm_index')) as options`,
    );
    expect(index.def).toMatch(/USING gin \(name gin_trgm_ops\)/);
    expect(index.options).toEqual(['fastupdate=off']);
    await sql(`insert into content (id, organization_id, project_id, type_id, type_version, package_version, name, status, is_template, content, compiled, tags, metadata, created_by_id, created_at, updated_at)
      select 'n' || i, 'o', 'p', 't', 1, '0.0.0', 'Entry ' || i, 'draft', false, '{}', '', '[]', '{}', 'u', now(), now() from generate_series(1, 2000) as i`);
    await sql('analyze content');
    const plan = (
      await sql(`explain select count(*) from content where project_id = 'p' and name ilike '%Entry 1234%'`)
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Bitmap Index Scan on content_name_trgm_index/);
    const [{ n }] = await sql(
      `select count(*)::int as n from content where project_id = 'p' and name ilike '%Entry 1234%'`,
    );
    expect(n).toBe(1);
  });
});
