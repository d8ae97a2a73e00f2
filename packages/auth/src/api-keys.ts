// API-key authentication: the principal of a presented key, by its SHA-256 hash, from the principal cache or the database.
import { UnauthorizedError } from '@cp/errors';
import type { ApiKeyPrincipal, ApiKeyScope } from '@cp/principal';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashKey, looksLikeKey, matchesHash } from './api-key-secret';
import { LastUsedRecorder } from './last-used';
import type { PrincipalCache } from './principal-cache';

/** The access module's `api_key` table, as far as authentication reads it. */
interface KeyRow {
  id: string;
  organization_id: string;
  project_id: string;
  status: string;
  scope: ApiKeyScope;
  last_used: Date | string | null;
  key_hash: string;
}

export class ApiKeyLookup {
  readonly lastUsed = new LastUsedRecorder();

  constructor(private readonly cache: PrincipalCache) {}

  /** The cache, else one round trip on the unique hash index; an unknown, malformed or revoked key is 401. */
  async authenticate(em: EntityManager, presented: string): Promise<ApiKeyPrincipal> {
    if (!looksLikeKey(presented)) throw new UnauthorizedError('The API key is invalid or revoked.');
    const hash = hashKey(presented);
    return this.fromCache(em, hash) ?? this.cache.loadKey(hash, () => this.read(em, presented, hash));
  }

  /** One round trip on the unique hash index; a refused key throws, so nothing is cached for it. */
  private async read(em: EntityManager, presented: string, hash: string): Promise<ApiKeyPrincipal> {
    const [key] = await em.getConnection().execute<KeyRow[]>(
      `select "id", "organization_id", "project_id", "status", "scope", "last_used", "key_hash"
         from "api_key" where "key_hash" = ?`,
      [hash],
    );
    // The lookup is by hash, so its timing says nothing about the key; the compare is constant-time anyway.
    if (!key || !matchesHash(presented, key.key_hash) || key.status !== 'active') {
      throw new UnauthorizedError('The API key is invalid or revoked.');
    }
    this.lastUsed.record(em, key.id, key.last_used ? new Date(key.last_used) : null);
    return {
      kind: 'apiKey',
      keyId: key.id,
      organizationId: key.organization_id,
      projectId: key.project_id,
      scope: key.scope,
    };
  }

  /** The principal of a presented key memory holds (its use recorded), else undefined. */
  cached(em: EntityManager, presented: string): ApiKeyPrincipal | undefined {
    return looksLikeKey(presented) ? this.fromCache(em, hashKey(presented)) : undefined;
  }

  private fromCache(em: EntityManager, hash: string): ApiKeyPrincipal | undefined {
    const cached = this.cache.getKey(hash);
    if (cached) this.lastUsed.record(em, cached.keyId);
    return cached;
  }
}
