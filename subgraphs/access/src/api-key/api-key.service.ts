// API key rules: creation (value shown once), tenancy-scoped reads, revocation, and authentication of `x-api-key`.
import { LockMode } from '@mikro-orm/core';
import { NotFoundError, UnauthorizedError, ValidationFailedError } from '@cp/errors';
import { recordEvent } from '@cp/db';
import { offsetPage, type ApiKeyPrincipal, type OffsetArgs, type ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, ApiKeyScope, ApiKeyStatus, CreatedApiKey } from './api-key.entity';
import type { CreateApiKeyInput } from './api-key.inputs';
import { generateKey, hashKey, looksLikeKey, matchesHash } from './api-key.secret';
import { PrincipalCache } from '../auth/principal-cache';
import { LastUsedRecorder } from './last-used';

interface KeyRow {
  id: string;
  organization_id: string;
  project_id: string;
  status: string;
  scope: ApiKeyScope;
  last_used: Date | string | null;
  key_hash: string;
}

export class ApiKeyService {
  readonly lastUsed = new LastUsedRecorder();

  constructor(private readonly cache = new PrincipalCache(0)) {}

  list(em: EntityManager, scope: ProjectScope, page: OffsetArgs) {
    return offsetPage(em, ApiKey, { organizationId: scope.organizationId, projectId: scope.projectId }, page);
  }

  /** `lock` (inside a transaction): the row stays ours until it ends, so If-Match is compared with what we change (D16). */
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

  /**
   * A cache hit needs no database round trip; the cache entry is dropped on every replica when the key changes
   * (revocation records an `api-keys` event, which the gateway turns into an invalidation).
   */
  /**
   * The principal of a key already in the principal cache, synchronously (the client-read fast path); undefined
   * otherwise, and the caller falls back to `authenticate`. `em` only lends its connection to the batched `lastUsed`.
   */
  cachedPrincipal(em: EntityManager, presented: string): ApiKeyPrincipal | undefined {
    const trimmed = presented.trim();
    if (!looksLikeKey(trimmed)) return undefined;
    const cached = this.cache.getKey(hashKey(trimmed));
    if (cached) this.lastUsed.record(em, cached.keyId);
    return cached;
  }

  async authenticate(em: EntityManager, presented: string): Promise<ApiKeyPrincipal> {
    if (!looksLikeKey(presented)) throw new UnauthorizedError('The API key is invalid or revoked.');
    const hash = hashKey(presented);
    const cached = this.cache.getKey(hash);
    if (cached) {
      this.lastUsed.record(em, cached.keyId);
      return cached;
    }
    const ticket = this.cache.ticket();
    // Plain SQL on the unique hash index.
    const [key] = await em.getConnection().execute<KeyRow[]>(
      `select "id", "organization_id", "project_id", "status", "scope", "last_used", "key_hash"
         from "api_key" where "key_hash" = ?`,
      [hash],
    );
    // The lookup is by hash, so its timing says nothing about the key; the compare is constant-time anyway.
    if (!key || !matchesHash(presented, key.key_hash) || key.status !== ApiKeyStatus.active) {
      throw new UnauthorizedError('The API key is invalid or revoked.');
    }
    const principal: ApiKeyPrincipal = {
      kind: 'apiKey',
      keyId: key.id,
      organizationId: key.organization_id,
      projectId: key.project_id,
      scope: key.scope,
    };
    this.cache.setKey(ticket, hash, principal);
    this.lastUsed.record(em, key.id, key.last_used ? new Date(key.last_used) : null);
    return principal;
  }
}
