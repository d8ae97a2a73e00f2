// Validates `componentIdsAllowList` (spec "Content types" update errors): ids, or groups `{id, name, componentIds}`.
import { ValidationFailedError, type FieldError } from '@cp/errors';
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { projectComponents } from '../shared/component-catalog';

const GROUP_FIELDS = ['id', 'name', 'componentIds'] as const;

export async function assertValidAllowList(em: EntityManager, scope: ProjectScope, list: unknown): Promise<void> {
  if (!Array.isArray(list))
    throw new ValidationFailedError([{ path: '/componentIdsAllowList', message: 'must be an array' }]);
  const ids: string[] = [];
  const seenGroups = new Set<string>();
  const duplicateGroupIds: string[] = [];
  const emptyGroups: string[] = [];
  const missingFields: { groupIndex: number; missingFields: string[] }[] = [];
  const errors: FieldError[] = [];
  list.forEach((entry, groupIndex) => {
    const path = `/componentIdsAllowList/${groupIndex}`;
    if (typeof entry === 'string') {
      ids.push(entry);
      return;
    }
    const group = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const missing = GROUP_FIELDS.filter((f) => group[f] === undefined || group[f] === null);
    if (missing.length > 0) {
      missingFields.push({ groupIndex, missingFields: missing });
      errors.push({ path, message: `group is missing ${missing.join(', ')}` });
    }
    if (typeof group.id === 'string') {
      if (seenGroups.has(group.id)) {
        duplicateGroupIds.push(group.id);
        errors.push({ path: `${path}/id`, message: `duplicate group id "${group.id}"` });
      }
      seenGroups.add(group.id);
    }
    if (Array.isArray(group.componentIds)) {
      if (group.componentIds.length === 0) {
        emptyGroups.push(typeof group.id === 'string' ? group.id : String(groupIndex));
        errors.push({ path: `${path}/componentIds`, message: 'group has no components' });
      }
      ids.push(...group.componentIds.filter((id): id is string => typeof id === 'string'));
    }
  });
  const known = new Set((await projectComponents(em, scope)).map((c) => c.id));
  const invalidComponentIds = [...new Set(ids.filter((id) => !known.has(id)))];
  for (const id of invalidComponentIds)
    errors.push({ path: '/componentIdsAllowList', message: `unknown component "${id}"` });
  if (errors.length === 0) return;
  throw new ValidationFailedError(errors, 'The component allow list is invalid.', {
    ...(duplicateGroupIds.length ? { duplicateGroupIds } : {}),
    ...(invalidComponentIds.length ? { invalidComponentIds } : {}),
    ...(emptyGroups.length ? { emptyGroups } : {}),
    ...(missingFields.length ? { missingFields } : {}),
  });
}
