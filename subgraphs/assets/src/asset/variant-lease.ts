// Leases in PostgreSQL on image variants being computed: across replicas, one computes a variant, the others wait.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { VariantLease } from '@cp/storage';

/**
 * A lease row per variant being computed. A crashed holder's lease lapses after `ttlSeconds` and the next request
 * takes it over; the holder deletes it once the variant is stored.
 */
export function sqlVariantLease(orm: MikroORM, ttlSeconds = 60): VariantLease {
  const run = (sql: string, params: unknown[]) => orm.em.getConnection().execute(sql, params, 'all');
  return {
    async acquire(key) {
      const rows = await run(
        `insert into "image_variant_lease" ("key", "expires_at") values (?, now() + make_interval(secs => ?))
         on conflict ("key") do update set "expires_at" = excluded."expires_at"
         where "image_variant_lease"."expires_at" < now()
         returning "key"`,
        [key, ttlSeconds],
      );
      return rows.length === 1;
    },
    async release(key) {
      await run(`delete from "image_variant_lease" where "key" = ?`, [key]);
    },
  };
}
