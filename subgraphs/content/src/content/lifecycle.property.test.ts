import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';

/** The spec's state table, as an independent model the service must agree with. */
const MODEL: Record<string, Record<string, string>> = {
  update: { draft: 'draft', modified: 'modified', published: 'modified', unpublished: 'modified' },
  publish: { draft: 'published', modified: 'published', unpublished: 'published' },
  unpublish: { published: 'unpublished' },
  discard: { modified: 'published' },
  rollback: { published: 'modified' },
  delete: { draft: 'deleted', modified: 'deleted', published: 'deleted', unpublished: 'deleted' },
  restore: { deleted: 'restore' },
};
const MUTATION: Record<string, string> = {
  update: 'updateContent(organizationId: "o", projectId: "p", id: $id, input: { content: { n: 1 } })',
  publish: 'publishContent(organizationId: "o", projectId: "p", id: $id)',
  unpublish: 'unpublishContent(organizationId: "o", projectId: "p", id: $id)',
  discard: 'discardContent(organizationId: "o", projectId: "p", id: $id)',
  rollback: 'rollbackContent(organizationId: "o", projectId: "p", id: $id, input: { version: 1 })',
  delete: 'deleteContent(organizationId: "o", projectId: "p", id: $id)',
  restore: 'restoreContent(organizationId: "o", projectId: "p", id: $id)',
};

describe('content lifecycle invariants (property test, real PostgreSQL)', () => {
  let db: TestDatabase;
  let run: RunOptions;
  let typeId: string;
  const exec = async (source: string, variables: Record<string, unknown> = {}) => {
    const res = await runOperation(run, source, variables);
    return { data: res.data as any, code: res.errors?.[0]?.extensions?.code as string | undefined };
  };

  beforeAll(async () => {
    db = await openTestDatabase('postgres', [contentDatabase]);
    run = {
      schema: (await buildContentSubgraph({ config: loadConfig({ DATA_DIR: tmpdir() }), secret: new Uint8Array(32) }))
        .schema,
      em: db.orm.em,
      principal: adminPrincipal('o', 'u'),
      projects: fixedProjects(['o', 'p']),
    };
    typeId = (
      await exec(
        `mutation { createContentType(organizationId: "o", projectId: "p", input: { name: "T", schema: { type: "object" } }) { id } }`,
      )
    ).data.createContentType.id;
    await exec(`mutation($id: ID!) { publishContentType(organizationId: "o", projectId: "p", id: $id) { id } }`, {
      id: typeId,
    });
  });
  afterAll(() => db?.destroy());

  it('keeps status per the table, versions consecutive and immutable, version null exactly on draft/modified', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...Object.keys(MODEL)), { minLength: 1, maxLength: 12 }),
        async (actions) => {
          const id = (
            await exec(
              `mutation($t: ID!) { createContent(organizationId: "o", projectId: "p", input: { typeId: $t, name: "x", content: {} }) { id } }`,
              { t: typeId },
            )
          ).data.createContent.id;
          let status = 'draft';
          let version: number | null = null;
          let published = 0;
          const frozen = new Map<number, string>();
          const versionRow = async (v: number) =>
            (
              await db.orm.em
                .getConnection()
                .execute(`select content::text as c from content_version where content_id = ? and version = ?`, [id, v])
            )[0]?.c as string;
          for (const action of actions) {
            const expected = MODEL[action][status];
            const { data, code } = await exec(
              `mutation($id: ID!) { r: ${MUTATION[action]} { status version lastPublishedVersion } }`,
              { id },
            );
            if (!expected) {
              expect(code, `${action} from ${status}`).toBe('INVALID_STATUS_TRANSITION');
              continue;
            }
            expect(code, `${action} from ${status}`).toBeUndefined();
            if (action === 'publish') {
              published++;
              frozen.set(published, await versionRow(published));
            }
            if (action === 'restore') status = published > 0 ? 'modified' : 'draft';
            else status = expected;
            if (status === 'draft' || status === 'modified') version = null;
            else if (action === 'publish' || action === 'discard') version = published;
            expect(data.r).toEqual({ status, version, lastPublishedVersion: published || null });
          }
          const rows = await db.orm.em
            .getConnection()
            .execute(`select version, content::text as c from content_version where content_id = ? order by version`, [
              id,
            ]);
          expect(rows.map((r: any) => r.version)).toEqual(Array.from({ length: published }, (_, i) => i + 1));
          for (const r of rows)
            expect(r.c, `version ${r.version} changed after it was published`).toBe(frozen.get(r.version));
        },
      ),
      { numRuns: 40 },
    );
  });
});
