// The lifecycle mutations factory against a written-out resolver: same fields, arguments, permissions and calls.
import fc from 'fast-check';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import { createRequire } from 'node:module';
import { Arg, Args, buildSchema, Ctx, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { describe, expect, it } from 'vitest';
import { ExpectedRevisionArgs } from '@cp/db';
import { authorizeProject, RESOURCES, type Context, type Permissions } from '@cp/principal';
import { ProjectScopeArgs } from './project-scope-args';
import {
  LifecycleMutations,
  RollbackInput,
  type LifecycleMutation,
  type LifecycleService,
} from './lifecycle-mutations';
import { fixedProjects } from './testing';

// type-graphql builds with the CommonJS graphql; executing with vitest's ESM copy would refuse the schema.
const { graphql } = createRequire(__filename)('graphql') as typeof import('graphql');
const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 25) };
const ACTIONS: LifecycleMutation[] = ['publish', 'unpublish', 'discard', 'rollback', 'delete', 'restore'];
const idArg = { description: 'The thing.' };
const body = { description: 'The request body (REST: the JSON body).' };

@ObjectType({ description: 'A versioned thing.' })
class Thing {
  @Field(() => ID, { description: 'Its id.' })
  id!: string;

  @Field({ description: 'What was called.' })
  call!: string;
}

/** A service answering every transition with what it was called with. */
class RecordingService implements Required<LifecycleService<Thing>> {
  private answer(action: string, ...args: unknown[]): Promise<Thing> {
    return Promise.resolve({ id: String(args[1]), call: JSON.stringify([action, ...args]) });
  }
  publish = (_em: unknown, scope: object, id: string, actor: string) => this.answer('publish', scope, id, actor);
  unpublish = (_em: unknown, scope: object, id: string, actor: string) => this.answer('unpublish', scope, id, actor);
  discard = (_em: unknown, scope: object, id: string, actor: string) => this.answer('discard', scope, id, actor);
  delete = (_em: unknown, scope: object, id: string, actor: string) => this.answer('delete', scope, id, actor);
  restore = (_em: unknown, scope: object, id: string, actor: string) => this.answer('restore', scope, id, actor);
  rollback = (_em: unknown, scope: object, id: string, version: number, actor: string) =>
    this.answer('rollback', scope, id, version, actor);
}

const DESCRIPTIONS: Record<LifecycleMutation, string> = {
  publish: 'Publishes.',
  unpublish: 'Withdraws.',
  discard: 'Cancels the working copy.',
  rollback: 'Makes a working copy from a version.',
  delete: 'Soft-deletes.',
  restore: 'Restores.',
};

/** The mutations as the resolvers wrote them out before the factory: the reference the factory must reproduce. */
@Resolver(() => Thing)
class WrittenOut {
  readonly service = new RecordingService();

  @Query(() => Thing, { description: 'One thing.' })
  thing(): Thing {
    return { id: '1', call: '' };
  }

  @Mutation(() => Thing, { description: DESCRIPTIONS.publish })
  async publishThing(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'publish');
    return this.service.publish(ctx.em, scope, id, user.userId);
  }

  @Mutation(() => Thing, { description: DESCRIPTIONS.unpublish })
  async unpublishThing(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'publish');
    return this.service.unpublish(ctx.em, scope, id, user.userId);
  }

  @Mutation(() => Thing, { description: DESCRIPTIONS.discard })
  async discardThing(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return this.service.discard(ctx.em, scope, id, user.userId);
  }

  @Mutation(() => Thing, { description: DESCRIPTIONS.rollback })
  async rollbackThing(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: RollbackInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return this.service.rollback(ctx.em, scope, id, input.version, user.userId);
  }

  @Mutation(() => Thing, { description: DESCRIPTIONS.delete })
  async deleteThing(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'delete');
    return this.service.delete(ctx.em, scope, id, user.userId);
  }

  @Mutation(() => Thing, { description: DESCRIPTIONS.restore })
  async restoreThing(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return this.service.restore(ctx.em, scope, id, user.userId);
  }
}

/** A resolver with one mutation of its own, then the factory's, in the given order. */
function factoryResolver(actions: LifecycleMutation[]) {
  @Resolver(() => Thing)
  class Own {
    readonly service = new RecordingService();

    @Query(() => Thing, { description: 'One thing.' })
    thing(): Thing {
      return { id: '1', call: '' };
    }

    @Mutation(() => Thing, { description: 'Creates.' })
    createThing(): Thing {
      return { id: '1', call: 'create' };
    }
  }
  const mutations = Object.fromEntries(actions.map((a) => [a, DESCRIPTIONS[a]]));
  const options = { type: Thing, name: 'Thing', resource: 'content' as const, idDescription: idArg.description };
  @Resolver(() => Thing)
  class Built extends LifecycleMutations(Own, { ...options, mutations }) {}
  return Built;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
const build = (resolver: Function) => buildSchema({ resolvers: [resolver], validate: false, skipCheck: true });

/** A field as the schema shows it: type, description, arguments in order with theirs. */
function shape(field: GraphQLField<unknown, unknown>) {
  const args = field.args.map((a) => [a.name, String(a.type), a.description]);
  return { type: String(field.type), description: field.description, args };
}

async function run(schema: GraphQLSchema, action: LifecycleMutation, permissions: Permissions) {
  const input = action === 'rollback' ? ', input: {version: 3}' : '';
  const source = `mutation { m: ${action}Thing(organizationId: "o", projectId: "p", id: "t1"${input}) { call } }`;
  const contextValue = {
    em: {},
    principal: { kind: 'user', userId: 'u', organizationId: 'o', permissions },
    requestId: 'test',
    lang: 'en',
    projects: fixedProjects(['o', 'p']),
  } as unknown as Context;
  const result = await graphql({ schema, source, contextValue });
  return {
    call: (result.data?.m as Thing | undefined)?.call,
    code: result.errors?.[0]?.originalError?.['code' as never],
  };
}

describe('LifecycleMutations', () => {
  it('lists exactly the mutations given, in their order, after the resolver’s own, as written out', async () => {
    const reference = (await build(WrittenOut)).getMutationType()!.getFields();
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(ACTIONS, { minLength: 1 }), async (actions) => {
        const fields = (await build(factoryResolver(actions))).getMutationType()!.getFields();
        expect(Object.keys(fields)).toEqual(['createThing', ...actions.map((a) => `${a}Thing`)]);
        for (const a of actions) expect(shape(fields[`${a}Thing`])).toEqual(shape(reference[`${a}Thing`]));
      }),
      runs,
    );
  });

  it('needs the same flag and makes the same service call as written out', async () => {
    const reference = await build(WrittenOut);
    const built = await build(factoryResolver(ACTIONS));
    const flags = fc.subarray([...RESOURCES.content]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ACTIONS), flags, async (action, granted) => {
        const permissions = { content: Object.fromEntries(granted.map((f) => [f, true])) } as Permissions;
        const expected = await run(reference, action, permissions);
        expect(expected.call ?? expected.code).toBeDefined();
        expect(await run(built, action, permissions)).toEqual(expected);
      }),
      runs,
    );
  });
});
