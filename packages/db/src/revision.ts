// Optimistic concurrency: `revision` on resources, `expectedRevision` on their mutations, checked under the row lock.
import { PreconditionFailedError } from '@cp/errors';
import { ChangeSetType, OptimisticLockError, type EventSubscriber, type FlushEventArgs } from '@mikro-orm/core';
import { AsyncLocalStorage } from 'node:async_hooks';
import { ArgsType, Field, Int, type MiddlewareFn } from 'type-graphql';
import type { Context } from '@cp/principal';

@ArgsType()
export class ExpectedRevisionArgs {
  @Field(() => Int, {
    nullable: true,
    description:
      'Optimistic concurrency: change only if the resource is still at this `revision`, else PRECONDITION_FAILED (REST: `If-Match`).',
  })
  expectedRevision?: number;
}

interface Expectation {
  id: string;
  expected: number;
  /** Set once a flush has compared the row's revision; later flushes of the same request then pass. */
  checked: boolean;
}

const expectations = new AsyncLocalStorage<Expectation>();

/**
 * Compares the resource's revision when its change is flushed. Services take the row lock (or MikroORM's versioned
 * UPDATE refuses a stale row), so the comparison happens inside the write transaction and a mismatch rolls it back:
 * nothing changes, and the event recorded with the change disappears with it.
 */
export class RevisionCheck implements EventSubscriber {
  onFlush({ uow }: FlushEventArgs): void {
    for (const changeSet of uow.getChangeSets()) {
      if (changeSet.type !== ChangeSetType.UPDATE && changeSet.type !== ChangeSetType.DELETE) continue;
      const entity = changeSet.entity as { id?: string; revision?: number };
      if (entity.id !== undefined && changeSet.meta.versionProperty) checkExpectedRevision(entity.id, entity.revision!);
    }
  }
}

/**
 * The comparison for one record about to change at `revision` (the flush's, or a write that bypasses the unit of
 * work): PRECONDITION_FAILED when the request expects another revision of it. Once compared, later writes of the
 * request pass.
 */
export function checkExpectedRevision(id: string, revision: number): void {
  const expectation = expectations.getStore();
  if (!expectation || expectation.checked || expectation.id !== id) return;
  if (revision !== expectation.expected) throw new PreconditionFailedError(revision, expectation.expected);
  expectation.checked = true;
}

/**
 * Global middleware: a mutation given `expectedRevision` runs with the expectation in scope; a mutation that changed
 * nothing is still refused when the revision differs. A concurrent versioned UPDATE that lost the race becomes 412 too.
 */
export const revisionMiddleware: MiddlewareFn<Context> = async ({ args, info, context }, next) => {
  if (info.parentType.name !== 'Mutation') return next();
  const expected = args.expectedRevision as number | null | undefined;
  const run = async () => {
    try {
      return await next();
    } catch (err) {
      if (!(err instanceof OptimisticLockError)) throw err;
      const entity = err.entity as { id?: string; revision?: number } | undefined;
      const fresh = entity?.id
        ? await context.em.fork().findOne(entity.constructor as never, { id: entity.id } as never)
        : null;
      throw new PreconditionFailedError(
        (fresh as { revision?: number } | null)?.revision ?? entity?.revision ?? 0,
        expected ?? undefined,
      );
    }
  };
  if (expected === null || expected === undefined || typeof args.id !== 'string') return run();
  const expectation: Expectation = { id: args.id, expected, checked: false };
  return expectations.run(expectation, async () => {
    const result = (await run()) as { revision?: number } | null;
    if (!expectation.checked && typeof result?.revision === 'number' && result.revision !== expected) {
      throw new PreconditionFailedError(result.revision, expected);
    }
    return result;
  });
};
