// Test support: the few rows authentication reads (api_key, user + role), answered in memory, and a query counter.
import type { Permissions } from '@cp/principal';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashKey } from '../api-key-secret';

interface KeyRow {
  id: string;
  organization_id: string;
  project_id: string;
  status: 'active' | 'revoked';
  scope: 'published' | 'preview';
  last_used: Date | null;
  key_hash: string;
}

/**
 * Answers the two lookups of api-keys.ts and users.ts (and ignores the batched `lastUsed` update) from maps. The
 * real statements run against the access module's tables in its integration tests; here the entry point's rules are
 * under test, fast enough for property runs.
 */
export class MemoryAccessTables {
  readonly keys = new Map<string, KeyRow>();
  readonly users = new Map<string, { tokens_valid_after: Date; permissions: Permissions | null }>();
  queries = 0;

  readonly em = {
    getConnection: () => ({
      execute: async (sql: string, params: unknown[]) => {
        this.queries++;
        if (/^\s*select .* from "api_key"/s.test(sql)) {
          const row = this.keys.get(params[0] as string);
          return row ? [row] : [];
        }
        if (/^\s*select .* from "user" u/s.test(sql)) {
          const row = this.users.get(`${params[1]}/${params[0]}`);
          return row ? [row] : [];
        }
        if (/^\s*update "api_key"/.test(sql)) return [];
        throw new Error(`unexpected statement: ${sql}`);
      },
    }),
  } as unknown as EntityManager;

  addKey(key: string, row: Omit<KeyRow, 'key_hash' | 'last_used'>): void {
    this.keys.set(hashKey(key), { ...row, key_hash: hashKey(key), last_used: null });
  }

  addUser(organizationId: string, userId: string, permissions: Permissions, tokensValidAfter = new Date(0)): void {
    this.users.set(`${organizationId}/${userId}`, { tokens_valid_after: tokensValidAfter, permissions });
  }
}
