// QueryShapes on the content filters it serves: a cached shape answers exactly what a fresh build would.
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { QueryShapes } from '@cp/db';
import type { FilterQuery, QBFilterQuery } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDatabase } from '../index';
import { Content } from './content.entity';
import type { Visibility } from '@cp/graphql';
import { fullText, listWhere } from './content-query';
import { PublishedContent } from './published-content.entity';

describe('QueryShapes on content filters', () => {
  let db: TestDatabase;
  let builds = 0;
  const build = (where: FilterQuery<Content>) => {
    builds++;
    return db.orm.em
      .fork()
      .createQueryBuilder(PublishedContent, 'c')
      .select('*')
      .where(where as QBFilterQuery<PublishedContent>)
      .orderBy({ updatedAt: 'desc', id: 'desc' })
      .limit(21)
      .getKnexQuery();
  };
  const fresh = (where: FilterQuery<Content>) => {
    const { sql, bindings } = build(where).toSQL();
    return { sql, bindings: [...bindings] };
  };

  beforeAll(async () => {
    db = await openTestDatabase('postgres', [contentDatabase]);
  });
  afterAll(() => db?.destroy());

  const scope = (o: string, p: string) => ({ organizationId: o, projectId: p });
  const list = (o: string, p: string, args: Record<string, unknown> = {}, visibility: Visibility = 'published') =>
    ({ $and: listWhere(scope(o, p), args, visibility) }) as FilterQuery<Content>;
  const cursor = (where: FilterQuery<Content>, at: Date, id: string) =>
    ({
      $and: [where, { $or: [{ updatedAt: { $lt: at } }, { updatedAt: at, id: { $lt: id } }] }],
    }) as FilterQuery<Content>;

  it('learns a shape once, then answers other values of it without building', () => {
    const shapes = new QueryShapes<FilterQuery<Content>>();
    expect(shapes.compile('k', list('org-a', 'p1'), build)).toEqual(fresh(list('org-a', 'p1')));
    builds = 0;
    // Equal organization and project ids can't be told apart by value: the sentinels tell them apart by position.
    for (const [o, p] of [
      ['org-b', 'p2'],
      ['same', 'same'],
      ["o'; drop table content; --", 'p?'],
    ]) {
      expect(shapes.compile('k', list(o, p), build)).toEqual(fresh(list(o, p)));
    }
    expect(builds).toBe(3); // only the three `fresh` references
  });

  it('keeps keyset cursors (dates), typed and null filters right, each its own shape', () => {
    const shapes = new QueryShapes<FilterQuery<Content>>();
    const cases = [
      cursor(list('org-a', 'p1'), new Date('2026-01-01T00:00:00.000Z'), 'id-1'),
      cursor(list('org-b', 'p2'), new Date('2026-02-03T04:05:06.789Z'), 'id-2'),
      list('org-a', 'p1', { folderId: 'null' }),
      list('org-a', 'p1', { folderId: 'f1' }),
      list('org-a', 'p1', { folderId: 'f2', isTemplate: true, typeId: 't1', status: 'published' }),
      list('org-a', 'p1', { isTemplate: false }),
    ];
    for (const where of cases) expect(shapes.compile('k', where, build)).toEqual(fresh(where));
    builds = 0;
    for (const where of cases) expect(shapes.compile('k', where, build)).toEqual(fresh(where));
    expect(builds).toBe(cases.length); // learned: only the `fresh` references build
  });

  it("keeps the working rows' views apart: a preview key's status limit is part of its shape", () => {
    const working = (where: FilterQuery<Content>) =>
      db.orm.em
        .fork()
        .createQueryBuilder(Content, 'c')
        .select('*')
        .where(where as QBFilterQuery<Content>)
        .limit(21)
        .getKnexQuery();
    const sql = (where: FilterQuery<Content>) => {
      const { sql, bindings } = working(where).toSQL();
      return { sql, bindings: [...bindings] };
    };
    const shapes = new QueryShapes<FilterQuery<Content>>();
    const cases = [
      list('org-a', 'p1', {}, 'admin'),
      list('org-a', 'p1', {}, 'preview'),
      list('org-b', 'p2', { status: 'draft' }, 'preview'),
      list('org-a', 'p1', { status: 'deleted' }, 'admin'),
      list('org-b', 'p2', {}, 'admin'),
      list('org-b', 'p2', {}, 'preview'),
    ];
    for (const where of cases) expect(shapes.compile('k', where, working)).toEqual(sql(where));
    expect(sql(list('o', 'p', {}, 'preview')).bindings).toEqual(
      expect.arrayContaining(['draft', 'modified', 'published']),
    );
  });

  it('builds every time what it cannot prove: converted values and raw fragments', () => {
    const shapes = new QueryShapes<FilterQuery<Content>>();
    for (const tags of [['a'], ['b']]) {
      const where = list('org-a', 'p1', { tags: tags.join(',') });
      expect(shapes.compile('k', where, build)).toEqual(fresh(where));
    }
    for (const words of ['alpha', 'beta']) {
      const where = { $and: [list('org-a', 'p1'), fullText(words)!] } as FilterQuery<Content>;
      const compiled = shapes.compile('k', where, build);
      expect(compiled.bindings).toContain(`${words}:*`);
    }
  });

  it('keeps shapes apart by key', () => {
    const shapes = new QueryShapes<FilterQuery<Content>>();
    const other = (where: FilterQuery<Content>) => build(where).clearOrder().orderBy('c.created_at');
    const a = shapes.compile('newest', list('org-a', 'p1'), build);
    const b = shapes.compile('created', list('org-a', 'p1'), other);
    expect(a.sql).not.toBe(b.sql);
    expect(shapes.compile('created', list('org-b', 'p2'), other).sql).toBe(b.sql);
  });
});
