// Content type rules: tenancy-scoped reads, creation and partial update, each write with its event.
import { NameTakenError, NotFoundError, ValidationFailedError } from '@cp/errors';
import { isUniqueViolation, recordEvent } from '@cp/db';
import { keysetPage, type CursorArgs, type ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { EntityStatus } from '@cp/graphql';
import { ContentType } from './content-type.entity';
import type { CreateContentTypeInput, UpdateContentTypeInput } from './content-type.inputs';
import { assertValidJsonSchema } from './schema-validation';

export class ContentTypeService {
  list(em: EntityManager, scope: ProjectScope, args: CursorArgs) {
    return keysetPage(em, ContentType, {
      where: { organizationId: scope.organizationId, projectId: scope.projectId },
      sortField: 'createdAt',
      direction: 'desc',
      args,
    });
  }

  async get(em: EntityManager, scope: ProjectScope, id: string): Promise<ContentType> {
    const type = await em.findOne(ContentType, { id, organizationId: scope.organizationId, projectId: scope.projectId });
    if (!type) throw new NotFoundError('ContentType', id);
    return type;
  }

  async create(em: EntityManager, scope: ProjectScope, input: CreateContentTypeInput, actorId: string): Promise<ContentType> {
    const name = requireName(input.name);
    assertValidJsonSchema(input.schema);
    return this.write(em, name, async (tx) => {
      const type = tx.create(ContentType, {
        ...scope,
        name,
        description: input.description ?? null,
        schema: input.schema,
        layoutComponentId: input.layoutComponentId ?? null,
        componentIdsAllowList: input.componentIdsAllowList ?? [],
        templateContentIds: input.templateContentIds ?? [],
        permissions: input.permissions ?? {},
        metadata: input.metadata ?? {},
        createdById: actorId,
      });
      recordEvent(tx, { resourceType: 'content-types', action: 'created', resourceId: type.id, ...scope, actorId });
      return type;
    });
  }

  /** Only the members given change; a published (or unpublished) type becomes a `modified` working copy. */
  async update(em: EntityManager, scope: ProjectScope, id: string, input: UpdateContentTypeInput, actorId: string) {
    const name = input.name === undefined ? undefined : requireName(input.name);
    if (input.schema !== undefined) assertValidJsonSchema(input.schema);
    return this.write(em, name ?? '', async (tx) => {
      const type = await this.get(tx, scope, id);
      const changes = Object.fromEntries(Object.entries({ ...input, name }).filter(([, v]) => v !== undefined));
      tx.assign(type, changes);
      if (type.status === EntityStatus.published || type.status === EntityStatus.unpublished) {
        type.status = EntityStatus.modified;
        type.version = null;
      }
      recordEvent(tx, { resourceType: 'content-types', action: 'updated', resourceId: type.id, ...scope, actorId });
      return type;
    });
  }

  private async write<T>(em: EntityManager, name: string, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await em.transactional(work);
    } catch (err) {
      if (isUniqueViolation(err)) throw new NameTakenError('content type', name);
      throw err;
    }
  }
}

function requireName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationFailedError([{ path: '/name', message: 'must not be empty' }]);
  if (trimmed.length > 255) throw new ValidationFailedError([{ path: '/name', message: 'must be at most 255 characters' }]);
  return trimmed;
}
