// Recognises PostgreSQL unique-constraint violations so services can answer NAME_TAKEN instead of INTERNAL.
import { NameTakenError } from '@cp/errors';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!(err instanceof UniqueConstraintViolationException)) return false;
  return (
    constraint === undefined || String((err as { constraint?: string }).constraint ?? err.message).includes(constraint)
  );
}

/**
 * `work` in a transaction whose unique-name violation is 409 NAME_TAKEN for `resource`. `name` may be a function when
 * it is known only once `work` has run (discard and rollback bring back an earlier name, taken since).
 */
export async function transactionalNamed<T>(
  em: EntityManager,
  resource: string,
  name: string | (() => string),
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  try {
    return await em.transactional(work);
  } catch (err) {
    if (isUniqueViolation(err)) throw new NameTakenError(resource, typeof name === 'function' ? name() : name);
    throw err;
  }
}
