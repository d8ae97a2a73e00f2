// The real subgraph schemas' lifecycle mutations (LifecycleMutations in @cp/graphql) need exactly the role flag each
// needed when written out (the map below is the one in the resolvers before the factory), keys never run them, and
// another organization's user sees 404.
import { loadConfig } from '@cp/config';
import { SUBGRAPHS } from '@cp/gateway';
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';

// type-graphql builds with the CommonJS graphql; executing with vitest's ESM copy would refuse the schema.
const { graphql } = createRequire(__filename)('graphql') as typeof import('graphql');
const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

type Mutation = 'publish' | 'unpublish' | 'discard' | 'rollback' | 'delete' | 'restore';
/** `git show 018f105:<resolver>`: the flag each mutation's `authorizeProject` asked for. */
const BEFORE: Record<
  string,
  { subgraph: string; resource: string; flags: string[]; needs: Partial<Record<Mutation, string>> }
> = {
  Component: {
    subgraph: 'components',
    resource: 'components',
    flags: ['create', 'read', 'update', 'delete'],
    needs: { delete: 'delete', discard: 'update', rollback: 'update', restore: 'update' },
  },
  ContentType: {
    subgraph: 'content',
    resource: 'contentTypes',
    flags: ['create', 'read', 'update', 'publish', 'delete'],
    needs: {
      publish: 'publish',
      unpublish: 'publish',
      discard: 'update',
      rollback: 'update',
      delete: 'delete',
      restore: 'update',
    },
  },
  Content: {
    subgraph: 'content',
    resource: 'content',
    flags: ['create', 'read', 'update', 'publish', 'delete'],
    needs: {
      publish: 'publish',
      unpublish: 'publish',
      discard: 'update',
      rollback: 'update',
      delete: 'delete',
      restore: 'update',
    },
  },
};
const CASES = Object.entries(BEFORE).flatMap(([name, r]) =>
  Object.entries(r.needs).map(([mutation, flag]) => ({ name, mutation, flag: flag!, ...r })),
);

describe('lifecycle mutations of the real subgraphs', () => {
  const schemas: Record<string, GraphQLSchema> = {};
  beforeAll(async () => {
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
    for (const module of SUBGRAPHS.filter((s) => s.name === 'content' || s.name === 'components')) {
      schemas[module.name] = (await module.build({ config, secret: new Uint8Array(32) } as never)).schema;
    }
  });

  async function run(c: (typeof CASES)[number], principal: object): Promise<string | undefined> {
    const input = c.mutation === 'rollback' ? ', input: {version: 1}' : '';
    const source = `mutation { m: ${c.mutation}${c.name}(organizationId: "o", projectId: "p", id: "x"${input}) { id } }`;
    const contextValue = {
      // No database: a caller who passes authorization fails in the service, with anything but FORBIDDEN or 404.
      em: {},
      principal,
      requestId: 'test',
      lang: 'en',
      projects: { exists: async (o: string, p: string) => o === 'o' && p === 'p', locales: async () => undefined },
    };
    const result = await graphql({ schema: schemas[c.subgraph], source, contextValue });
    expect(result.errors, JSON.stringify(result)).toBeDefined();
    const err = result.errors![0];
    return (err.originalError as { code?: string } | undefined)?.code ?? err.extensions?.code?.toString() ?? 'OTHER';
  }

  it('every lifecycle mutation exists and is FORBIDDEN exactly when its flag is missing', async () => {
    for (const c of CASES) {
      expect(schemas[c.subgraph].getMutationType()!.getFields()[`${c.mutation}${c.name}`], c.name).toBeDefined();
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CASES),
        fc.subarray(['create', 'read', 'update', 'publish', 'delete']),
        async (c, granted) => {
          const flags = granted.filter((f) => c.flags.includes(f));
          const permissions = { [c.resource]: Object.fromEntries(flags.map((f) => [f, true])) };
          const code = await run(c, { kind: 'user', userId: 'u', organizationId: 'o', permissions });
          const forbidden = code === 'FORBIDDEN';
          expect({ case: `${c.mutation}${c.name}`, flags, forbidden }).toEqual({
            case: `${c.mutation}${c.name}`,
            flags,
            forbidden: !flags.includes(c.flag),
          });
          expect(code).not.toBe('NOT_FOUND');
        },
      ),
      runs,
    );
  });

  it('API keys of either scope are refused, and another organization is 404 even with every flag', async () => {
    const all = (c: (typeof CASES)[number]) => ({ [c.resource]: Object.fromEntries(c.flags.map((f) => [f, true])) });
    for (const c of CASES) {
      for (const scope of ['published', 'preview']) {
        const key = { kind: 'apiKey', keyId: 'k', organizationId: 'o', projectId: 'p', scope };
        expect([c.name, c.mutation, scope, await run(c, key)]).toEqual([c.name, c.mutation, scope, 'FORBIDDEN']);
      }
      const foreign = { kind: 'user', userId: 'u', organizationId: 'b', permissions: all(c) };
      expect([c.name, c.mutation, await run(c, foreign)]).toEqual([c.name, c.mutation, 'NOT_FOUND']);
      const otherProject = { kind: 'user', userId: 'u', organizationId: 'o', projectId: 'q', permissions: all(c) };
      expect([c.name, c.mutation, await run(c, otherProject)]).toEqual([c.name, c.mutation, 'NOT_FOUND']);
    }
  });
});
