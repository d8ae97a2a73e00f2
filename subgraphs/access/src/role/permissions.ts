// Role `permissions` exactly as the spec's Role table: known resources, their flags, boolean values.
import type { FieldError } from '@cp/errors';
import { ValidationFailedError } from '@cp/errors';
import { RESOURCES, type Permissions } from '@cp/graphql';

/** Returns the permissions when valid; otherwise VALIDATION_FAILED with a JSON Pointer per problem. */
export function validatePermissions(value: unknown, path = '/permissions'): Permissions {
  const errors: FieldError[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationFailedError([{ path, message: 'must be an object of resource → flags' }]);
  }
  for (const [resource, flags] of Object.entries(value)) {
    const allowed = (RESOURCES as Record<string, readonly string[]>)[resource];
    if (!Object.hasOwn(RESOURCES, resource) || !allowed) {
      errors.push({
        path: `${path}/${resource}`,
        message: `unknown resource; expected one of ${Object.keys(RESOURCES).join(', ')}`,
      });
      continue;
    }
    if (typeof flags !== 'object' || flags === null || Array.isArray(flags)) {
      errors.push({ path: `${path}/${resource}`, message: 'must be an object of flag → boolean' });
      continue;
    }
    for (const [flag, on] of Object.entries(flags)) {
      if (!allowed.includes(flag))
        errors.push({
          path: `${path}/${resource}/${flag}`,
          message: `unknown flag; expected one of ${allowed.join(', ')}`,
        });
      else if (typeof on !== 'boolean')
        errors.push({ path: `${path}/${resource}/${flag}`, message: 'must be a boolean' });
    }
  }
  if (errors.length) throw new ValidationFailedError(errors);
  return value as Permissions;
}

/** The first flag set in `granted` that `held` lacks, or undefined when `granted` ⊆ `held`. */
export function firstExceedingFlag(
  granted: Permissions,
  held: Permissions,
): { resource: string; action: string } | undefined {
  for (const [resource, flags] of Object.entries(granted)) {
    for (const [action, on] of Object.entries(flags ?? {})) {
      const heldFlags = (held as Record<string, Record<string, boolean> | undefined>)[resource];
      if (on === true && heldFlags?.[action] !== true) return { resource, action };
    }
  }
  return undefined;
}
