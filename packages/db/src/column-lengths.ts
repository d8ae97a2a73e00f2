// Text longer than its column is the client's 422 naming the member, checked when a change is flushed or saved.
import { ValidationFailedError, type FieldError } from '@cp/errors';
import {
  ChangeSetType,
  type EntityMetadata,
  type EntityProperty,
  type EventSubscriber,
  type FlushEventArgs,
} from '@mikro-orm/core';

/** The longest text a property's column holds: its `length`, or the N of a `varchar(N)` column type. */
function maxLength(property: EntityProperty): number | undefined {
  if (property.length) return property.length;
  const declared = /^(?:varchar|character varying)\((\d+)\)$/i.exec(property.columnTypes?.[0] ?? '');
  return declared ? Number(declared[1]) : undefined;
}

/**
 * PostgreSQL refuses text longer than a `varchar(N)` column (SQLSTATE 22001), which reached the client as a bare 400
 * without a path. Every entity's text columns are checked here instead, for every create and update, so such a value
 * is 422 `VALIDATION_FAILED` with `/<member>` whichever route wrote it; the services' own rules (names, tags)
 * come first with their own messages. Lengths are counted in characters, as PostgreSQL counts them.
 */
export class ColumnLengthCheck implements EventSubscriber {
  onFlush({ uow }: FlushEventArgs): void {
    const errors: FieldError[] = [];
    for (const changeSet of uow.getChangeSets()) {
      if (changeSet.type !== ChangeSetType.CREATE && changeSet.type !== ChangeSetType.UPDATE) continue;
      errors.push(...columnLengthErrors(changeSet.meta, changeSet.payload ?? {}));
    }
    if (errors.length) throw new ValidationFailedError(errors);
  }
}

/** The members of `values` (by property name) whose text is longer than the property's column. */
export function columnLengthErrors(meta: EntityMetadata, values: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== 'string') continue;
    const property = meta.properties[name];
    const max = property && maxLength(property);
    if (max !== undefined && value.length > max && [...value].length > max)
      errors.push({ path: `/${name}`, message: `must be at most ${max} characters` });
  }
  return errors;
}
