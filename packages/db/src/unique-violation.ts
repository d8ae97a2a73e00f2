// Recognises PostgreSQL unique-constraint violations so services can answer NAME_TAKEN instead of INTERNAL.
import { UniqueConstraintViolationException } from '@mikro-orm/core';

export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!(err instanceof UniqueConstraintViolationException)) return false;
  return constraint === undefined || String((err as { constraint?: string }).constraint ?? err.message).includes(constraint);
}
