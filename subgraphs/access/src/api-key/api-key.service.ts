// API key rules: creation (value shown once), tenancy-scoped reads, revocation; `@cp/auth` authenticates `x-api-key`.
import { LockMode } from '@mikro-orm/core';
import { generateKey, hashKey } from '@cp/auth';
import { NotFoundError, ValidationFailedError } from '@cp/errors';
import { recordEvent } from '@cp/db';
import { offsetPage, type OffsetArgs, type ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, ApiKeyScope, ApiKeyStatus, CreatedApiKey } from './api-key.entity';
import type { CreateApiKeyInput } from './api-key.inputs';

export class ApiKeyService {
  list(em: EntityManager, scope: ProjectScope, page: OffsetArgs) {
    return offsetPage(em, ApiKey, { organizationId: scope.organizationId, projectId: scope.projectId }, page);
  }

  /** `lock` (inside a transaction): the row stays ours until it ends, so If-Match is compared with what we change. */
  async get(em: EntityManager, scope: ProjectScope, id: string, lock = false): Promise<ApiKey> {
    const where = { id, organizationId: scope.organizationId, projectId: scope.projectId };
    const key = await em.findOne(ApiKey, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!key) throw new NotFoundError('ApiKey', id);
    return key;
  }

  async create(
    em: EntityManager,
    scope: ProjectScope,
    input: CreateApiKeyInput,
    actorId: string,
  ): Promise<CreatedApiKey> {
    const name = input.name.trim();
    if (!name) throw new ValidationFailedError([{ path: '/name', message: 'must not be empty' }]);
    if (name.length > 255)
      throw new ValidationFailedError([{ path: '/name', message: 'must be at most 255 characters' }]);
    const key = generateKey();
    const apiKey = await em.transactional(async (tx) => {
      const fields = { name, description: input.description ?? null, scope: input.scope ?? ApiKeyScope.published };
      const created = tx.create(ApiKey, { ...scope, ...fields, keyHash: hashKey(key), createdById: actorId });
      recordEvent(tx, { resourceType: 'api-keys', action: 'created', resourceId: created.id, ...scope, actorId });
      return created;
    });
    return Object.assign(new CreatedApiKey(), apiKey, { key });
  }

  /** Idempotent: revoking a revoked key answers it unchanged. */
  async revoke(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<ApiKey> {
    return em.transactional(async (tx) => {
      const key = await this.get(tx, scope, id, true);
      if (key.status === ApiKeyStatus.revoked) return key;
      key.status = ApiKeyStatus.revoked;
      recordEvent(tx, { resourceType: 'api-keys', action: 'updated', resourceId: key.id, ...scope, actorId });
      return key;
    });
  }
}
