// Normalising names and name lists the same way in every subgraph.
import { ValidationFailedError } from '@cp/errors';

/** A display name: trimmed, not empty, at most 255 characters (422 with `path` otherwise). */
export function requireName(name: string, path = '/name'): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationFailedError([{ path, message: 'must not be empty' }]);
  if (trimmed.length > 255) throw new ValidationFailedError([{ path, message: 'must be at most 255 characters' }]);
  return trimmed;
}

/** Tag names, event types…: trimmed, empty ones dropped, each once, in first-seen order. */
export function distinctNames(names: readonly string[] | undefined): string[] {
  return [...new Set((names ?? []).map((n) => n.trim()).filter(Boolean))];
}
