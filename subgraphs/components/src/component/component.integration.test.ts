import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { tmpdir } from 'node:os';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildComponentsSubgraph, componentsDatabase } from '../index';

const source = (title: string, props = 'title: string;') => `
export interface Props { ${props} }
export function metadata() { return { title: '${title}', description: '${title} component' }; }
export default function render(props: Props) { return JSON.stringify(props); }
`;
const FIELDS = 'id name type status version lastPublishedVersion title description compiled schema';
const CREATE = `mutation($input: CreateComponentInput!) { createComponent(organizationId: "o", projectId: "p", input: $input) { ${FIELDS} } }`;
const op = (name: string, extra = '') =>
  `mutation($id: ID!) { ${name}(organizationId: "o", projectId: "p", id: $id${extra}) { ${FIELDS} } }`;
const PACKAGE = `mutation { createPackage(organizationId: "o", projectId: "p", input: { description: "d" }) { id version components { id name version } } }`;

describe.each(['postgres', 'pglite'] as const)('components and packages on %s', (kind) => {
  let db: TestDatabase;
  let run: RunOptions;
  const exec = async (source: string, variables: Record<string, unknown> = {}, options: Partial<RunOptions> = {}) => {
    const res = await runOperation({ ...run, ...options }, source, variables);
    return { data: res.data as any, error: res.errors?.[0]?.extensions as { code: string; details: any } | undefined };
  };
  const create = async (name: string, props?: string) =>
    (await exec(CREATE, { input: { name, type: 'view', content: source(name, props) } })).data.createComponent;

  beforeAll(async () => {
    db = await openTestDatabase(kind, [componentsDatabase]);
    run = {
      schema: (await buildComponentsSubgraph(loadConfig({ DATA_DIR: tmpdir() }))).schema,
      em: db.orm.em,
      principal: adminPrincipal('o', 'u1'),
      projects: fixedProjects(['o', 'p']),
    };
  });
  afterAll(() => db?.destroy());

  it('creates a draft with compiled code, and answers 400 with a field map for bad input', async () => {
    const hero = await create('Hero');
    expect(hero).toMatchObject({
      name: 'Hero',
      type: 'view',
      status: 'draft',
      version: null,
      lastPublishedVersion: null,
      title: 'Hero',
    });
    expect(hero.compiled).toContain('metadata');
    const bad = await exec(CREATE, { input: { name: ' ', type: 'widget', content: 'x' } });
    expect(bad.error).toMatchObject({
      code: 'BAD_REQUEST',
      details: { name: 'is required', type: 'must be `view` or `layout`' },
    });
    const taken = await exec(CREATE, { input: { name: 'Hero', type: 'layout', content: source('Hero') } });
    expect(taken.error?.code).toBe('NAME_TAKEN');
  });

  it('publishes every draft in one package with consecutive versions; then NOTHING_TO_PUBLISH', async () => {
    await create('Card');
    const first = (await exec(PACKAGE)).data.createPackage;
    expect(first.version).toBe('1.0.0');
    expect(first.components.map((c: any) => [c.name, c.version])).toEqual([
      ['Card', 1],
      ['Hero', 1],
    ]);
    expect((await exec(PACKAGE)).error?.code).toBe('NOTHING_TO_PUBLISH');
    const events = await db.orm.em
      .getConnection()
      .execute(
        `select type, count(*)::int n from event where type in ('components.published', 'packages.created') group by type order by type`,
      );
    expect(events).toEqual([
      { type: 'components.published', n: 2 },
      { type: 'packages.created', n: 1 },
    ]);
  });

  it('follows the lifecycle: edit → modified, discard → published, rollback → modified, next package → version 2', async () => {
    const hero = (
      await exec(`{ components(organizationId: "o", projectId: "p", limit: 100) { data { id name } } }`)
    ).data.components.data.find((c: any) => c.name === 'Hero');
    const updated = (
      await exec(
        `mutation($id: ID!, $input: UpdateComponentInput!) { updateComponent(organizationId: "o", projectId: "p", id: $id, input: $input) { ${FIELDS} } }`,
        { id: hero.id, input: { content: source('Hero v2') } },
      )
    ).data.updateComponent;
    expect(updated).toMatchObject({ status: 'modified', version: null, lastPublishedVersion: 1, title: 'Hero v2' });
    const discarded = (await exec(op('discardComponent'), { id: hero.id })).data.discardComponent;
    expect(discarded).toMatchObject({ status: 'published', version: 1, title: 'Hero' });
    expect((await exec(op('discardComponent'), { id: hero.id })).error).toMatchObject({
      code: 'INVALID_STATUS_TRANSITION',
      details: { currentStatus: 'published', requestedStatus: 'published' },
    });
    await exec(
      `mutation($id: ID!, $input: UpdateComponentInput!) { updateComponent(organizationId: "o", projectId: "p", id: $id, input: $input) { id } }`,
      { id: hero.id, input: { content: source('Hero v2') } },
    );
    const second = (await exec(PACKAGE)).data.createPackage;
    expect(second.components.find((c: any) => c.name === 'Hero').version).toBe(2);
    const rolled = (await exec(op('rollbackComponent', ', input: { version: 1 }'), { id: hero.id })).data
      .rollbackComponent;
    expect(rolled).toMatchObject({ status: 'modified', version: null, lastPublishedVersion: 2, title: 'Hero' });
    const versions = (
      await exec(
        `query($id: ID!) { componentVersions(organizationId: "o", projectId: "p", id: $id) { data { version status title } } }`,
        { id: hero.id },
      )
    ).data.componentVersions.data;
    expect(versions).toEqual([
      { version: 2, status: 'published', title: 'Hero v2' },
      { version: 1, status: 'published', title: 'Hero' },
    ]);
  });

  it('refuses to delete a component a package references (COMPONENT_IN_USE); deletes and restores others', async () => {
    const card = (
      await exec(`{ components(organizationId: "o", projectId: "p", limit: 100) { data { id name } } }`)
    ).data.components.data.find((c: any) => c.name === 'Card');
    expect((await exec(op('deleteComponent'), { id: card.id })).error).toMatchObject({
      code: 'COMPONENT_IN_USE',
      details: { packages: ['1.0.0', expect.any(String)] },
    });
    const loose = await create('Loose');
    expect((await exec(op('deleteComponent'), { id: loose.id })).data.deleteComponent.status).toBe('deleted');
    expect((await exec(op('restoreComponent'), { id: loose.id })).data.restoreComponent).toMatchObject({
      status: 'draft',
      version: null,
    });
  });

  it('resolves a package with every component’s compiled code and schema', async () => {
    const res = await exec(
      `{ resolvedPackage(organizationId: "o", projectId: "p", version: "1.0.0") { version components { name version compiled schema } } }`,
    );
    expect(res.data.resolvedPackage.components).toHaveLength(2);
    for (const c of res.data.resolvedPackage.components) expect(c.compiled).toContain('metadata');
    expect(
      (await exec(`{ resolvedPackage(organizationId: "o", projectId: "p", version: "9.9.9") { version } }`)).error
        ?.code,
    ).toBe('NOT_FOUND');
  });

  it('shows API keys the last published version only, never drafts', async () => {
    const key = {
      principal: {
        kind: 'apiKey' as const,
        keyId: 'k',
        organizationId: 'o',
        projectId: 'p',
        scope: 'published' as const,
      },
    };
    const list = (
      await exec(
        `{ components(organizationId: "o", projectId: "p", limit: 100) { data { name status version title } } }`,
        {},
        key,
      )
    ).data.components.data;
    expect(list.map((c: any) => c.name).sort()).toEqual(['Card', 'Hero']);
    expect(list.find((c: any) => c.name === 'Hero')).toEqual({
      name: 'Hero',
      status: 'published',
      version: 2,
      title: 'Hero v2',
    });
    expect((await exec(PACKAGE, {}, key)).error?.code).toBe('FORBIDDEN');
  });

  it('never hands out one package version twice under concurrent creation', async () => {
    await Promise.all(['C1', 'C2', 'C3'].map((n) => create(n)));
    const results = await Promise.all([exec(PACKAGE), exec(PACKAGE), exec(PACKAGE)]);
    const versions = results.filter((r) => r.data?.createPackage).map((r) => r.data.createPackage.version);
    expect(versions).toHaveLength(1);
    expect(results.filter((r) => r.error).map((r) => r.error!.code)).toEqual([
      'NOTHING_TO_PUBLISH',
      'NOTHING_TO_PUBLISH',
    ]);
  });
});
