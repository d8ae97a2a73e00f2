// One resolver factory for the lifecycle mutations of versioned resources (publish, unpublish, discard, rollback,
// delete, restore: spec "States and transitions"): the same arguments, permission and service call for each.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Arg, Args, Ctx, Field, ID, InputType, Int, Mutation, Resolver, type ClassType } from 'type-graphql';
import { ExpectedRevisionArgs } from '@cp/db';
import { authorizeProject, type Action, type Context, type ProjectScope } from '@cp/principal';
import { ProjectScopeArgs } from './project-scope-args';

@InputType({ description: 'Which published version to take the working copy from.' })
export class RollbackInput {
  @Field(() => Int, { description: 'An existing version number.' })
  version!: number;
}

/** The transitions a service runs by id alone (rollback also takes the version); each is one lifecycle transition. */
export interface LifecycleService<E> {
  publish?(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<E>;
  unpublish?(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<E>;
  discard?(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<E>;
  rollback?(em: EntityManager, scope: ProjectScope, id: string, version: number, actorId: string): Promise<E>;
  delete?(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<E>;
  restore?(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<E>;
}

export type LifecycleMutation = keyof LifecycleService<unknown>;
type LifecycleResource = 'components' | 'contentTypes' | 'content';

/** The role flag each mutation needs (spec "Roles"): withdrawing is publishing, undoing is editing. */
const PERMISSION = {
  publish: 'publish',
  unpublish: 'publish',
  discard: 'update',
  rollback: 'update',
  delete: 'delete',
  restore: 'update',
} as const satisfies Record<LifecycleMutation, string>;

export interface LifecycleMutationsOptions<E extends object> {
  /** The GraphQL type the mutations return. */
  type: ClassType<E>;
  /** Its name in the field names: `publish${name}`, `discard${name}`, … */
  name: string;
  /** The permission resource (spec "Roles"). */
  resource: LifecycleResource;
  /** The description of the `id` argument. */
  idDescription: string;
  /** The mutations, in the order the schema lists them, with their descriptions. */
  mutations: Partial<Record<LifecycleMutation, string>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeScript's mixin rule: a base takes `...args: any[]`
type WithService<E> = abstract new (...args: any[]) => { readonly service: LifecycleService<E> };

const BODY = { description: 'The request body (REST: the JSON body).' };

/**
 * Adds the lifecycle mutations to `Base` (a `@Resolver` class with a `service`), after Base's own mutations in the
 * schema: type-graphql lists fields in the order they are declared, and the schema (REST routes, clients) keeps it.
 * The class is built rather than written out because resources offer different sets (components are published
 * through packages); see type-graphql's "Resolvers inheritance".
 */
export function LifecycleMutations<E extends object, B extends WithService<E>>(
  Base: B,
  options: LifecycleMutationsOptions<E>,
) {
  @Resolver()
  abstract class Lifecycle extends Base {}
  for (const [action, description] of Object.entries(options.mutations) as [LifecycleMutation, string][]) {
    defineMutation(Lifecycle.prototype, action, description, options);
  }
  return Lifecycle;
}

/** `${action}${name}(organizationId, projectId, id, [input,] expectedRevision)`: authorize, then the service call. */
function defineMutation<E extends object>(
  prototype: object,
  action: LifecycleMutation,
  description: string,
  options: LifecycleMutationsOptions<E>,
): void {
  const field = `${action}${options.name}`;
  const rollback = action === 'rollback';
  const permission = PERMISSION[action] as Action<LifecycleResource>;
  async function resolve(this: { service: LifecycleService<E> }, ...params: unknown[]): Promise<E> {
    const [scope, id] = params as [ProjectScope, string];
    const ctx = params[params.length - 1] as Context;
    const user = await authorizeProject(ctx, scope, options.resource, permission);
    const { service } = this;
    if (rollback) return service.rollback!(ctx.em, scope, id, (params[2] as RollbackInput).version, user.userId);
    return service[action as Exclude<LifecycleMutation, 'rollback'>]!(ctx.em, scope, id, user.userId);
  }
  Object.defineProperty(prototype, field, { value: resolve, writable: true, configurable: true });
  const parameters: ((prototype: object, method: string, index: number) => void)[] = [
    Args(() => ProjectScopeArgs),
    Arg('id', () => ID, { description: options.idDescription }),
    ...(rollback ? [Arg('input', () => RollbackInput, BODY)] : []),
    Args(() => ExpectedRevisionArgs),
    Ctx(),
  ];
  // Applied last to first, as TypeScript applies written-out parameter decorators: type-graphql lists the
  // arguments in the order it receives them, so this keeps the schema's argument order of a written-out resolver.
  for (let index = parameters.length - 1; index >= 0; index--) parameters[index](prototype, field, index);
  Mutation(() => options.type, { description })(prototype, field, Object.getOwnPropertyDescriptor(prototype, field)!);
}
