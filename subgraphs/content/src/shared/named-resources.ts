// Rules shared by tags, folders and saved searches: project scope, names unique in the project (409 NAME_TAKEN), events.
import { escapeLike, recordEvent, transactionalNamed, type EventResourceType } from '@cp/db';
import { NotFoundError } from '@cp/errors';
import { offsetPage, type OffsetArgs, type ProjectScope, requireName } from '@cp/graphql';
import { LockMode } from '@mikro-orm/core';
import type { EntityClass, EntityManager, FilterQuery, RequiredEntityData } from '@mikro-orm/postgresql';

interface Named {
  id: string;
  name: string;
  organizationId: string;
  projectId: string;
}

export class NamedResources<T extends Named> {
  constructor(
    private readonly entity: EntityClass<T>,
    private readonly resourceType: EventResourceType,
    private readonly label: string,
  ) {}

  /** Offset list by name; `search` filters by name, case-insensitively; `only` narrows it further. */
  list(em: EntityManager, scope: ProjectScope, page: OffsetArgs, search?: string, only?: FilterQuery<T>) {
    const where = {
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      ...(search ? { name: { $ilike: `%${escapeLike(search)}%` } } : {}),
      ...(only as object),
    };
    return offsetPage(em, this.entity, where as FilterQuery<T>, page, { name: 'asc', id: 'asc' });
  }

  /** `lock` (inside a transaction): the row stays ours until it ends, so If-Match is compared with what we change. */
  async get(em: EntityManager, scope: ProjectScope, id: string, lock = false, only?: FilterQuery<T>): Promise<T> {
    const where = {
      id,
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      ...(only as object),
    } as FilterQuery<T>;
    const found = await em.findOne(this.entity, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!found) throw new NotFoundError(this.label, id);
    return found;
  }

  create(
    em: EntityManager,
    scope: ProjectScope,
    data: Omit<RequiredEntityData<T>, 'organizationId' | 'projectId'> & { name: string },
    actorId: string,
  ): Promise<T> {
    const name = requireName(data.name);
    return transactionalNamed(em, this.label.toLowerCase(), name, async (tx) => {
      const created = tx.create(this.entity, { ...data, name, ...scope } as RequiredEntityData<T>);
      recordEvent(tx, {
        resourceType: this.resourceType,
        action: 'created',
        resourceId: created.id,
        ...scope,
        actorId,
      });
      return created;
    });
  }

  /** `change` applies the members given (and any derived ones) to the locked row. */
  update(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    name: string | undefined,
    actorId: string,
    change: (tx: EntityManager, row: T) => Promise<void> | void,
  ) {
    const cleanName = name === undefined ? undefined : requireName(name);
    return transactionalNamed(em, this.label.toLowerCase(), cleanName ?? '', async (tx) => {
      const row = await this.get(tx, scope, id, true);
      if (cleanName !== undefined) row.name = cleanName;
      await change(tx, row);
      recordEvent(tx, { resourceType: this.resourceType, action: 'updated', resourceId: id, ...scope, actorId });
      return row;
    });
  }

  delete(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    actorId: string,
    before?: (tx: EntityManager, row: T) => Promise<void>,
  ): Promise<T> {
    return em.transactional(async (tx) => {
      const row = await this.get(tx, scope, id, true);
      await before?.(tx, row);
      tx.remove(row);
      recordEvent(tx, { resourceType: this.resourceType, action: 'deleted', resourceId: id, ...scope, actorId });
      return row;
    });
  }
}
