// Validation of display names shared by the access features.
import { ValidationFailedError } from '@cp/errors';

export function requireName(name: string, path = '/name'): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationFailedError([{ path, message: 'must not be empty' }]);
  if (trimmed.length > 255) throw new ValidationFailedError([{ path, message: 'must be at most 255 characters' }]);
  return trimmed;
}
