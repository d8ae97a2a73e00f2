// The typed schema of each project, per replica: keyed by the versions of its published content types, rebuilt in the
// background when a content type's event reaches this replica, the previous schema served until then.
import type { Logger } from '@cp/config';
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { printSchema } from 'graphql';
import { buildTypedSchema, type TypedSchema } from './typed-schema';
import type { TypedContentType } from './typed-source';

/** At most this many projects' schemas are kept; the least recently used goes first. */
const MAX_PROJECTS = 500;

/** A project's published content types, oldest first (their last published version each): one statement. */
export async function publishedTypes(em: EntityManager, scope: ProjectScope): Promise<TypedContentType[]> {
  const rows: { id: string; version: number; content: { name?: unknown; schema?: unknown } }[] = await em
    .getConnection()
    .execute(
      `select t."id", v."version", v."content" from "content_type" t
        join "content_type_version" v on v."content_type_id" = t."id" and v."version" = t."last_published_version"
        where t."organization_id" = ? and t."project_id" = ? and t."status" not in ('deleted', 'unpublished')
        order by t."created_at", t."id"`,
      [scope.organizationId, scope.projectId],
      'all',
      em.getTransactionContext(),
    );
  return rows.map((row) => ({
    id: row.id,
    version: row.version,
    name: typeof row.content?.name === 'string' ? row.content.name : '',
    schema: (row.content?.schema ?? {}) as Record<string, unknown>,
  }));
}

/** What the versions of a project's types are: equal keys build equal schemas. */
const versionKey = (types: TypedContentType[]) => types.map((t) => `${t.id}@${t.version}`).join(',');

/** A built schema with its SDL (printed once, when first asked for: queries don't need it). */
export interface ServedSchema extends TypedSchema {
  key: string;
  sdl(): string;
}

function served(built: TypedSchema, key: string): ServedSchema {
  let sdl: string | undefined;
  return { ...built, key, sdl: () => (sdl ??= printSchema(built.schema)) };
}

interface Slot {
  current?: ServedSchema;
  /** The load in progress, if any. */
  loading?: Promise<ServedSchema>;
  /** Events of the project's types seen so far: a load that started before the last one may be out of date. */
  events: number;
  /** `current` may be older than the last event (a rebuild is pending, running, or failed). */
  stale: boolean;
}

/** A schema to serve, and whether it is known to follow every event this replica has seen. */
export interface SchemaAnswer {
  schema: ServedSchema;
  /**
   * False while a newer schema is being built: what it answers must not be kept in a cache, which would keep it past
   * the event that made it old.
   */
  fresh: boolean;
}

export class TypedSchemas {
  private readonly slots = new Map<string, Slot>();

  constructor(
    /** A fresh entity manager for background loads (they outlive the request that started them). */
    private readonly em: () => EntityManager,
    private readonly logger?: Logger,
  ) {}

  /**
   * The project's schema: the one built, even while a newer one is being built (a failed rebuild is retried); the
   * first request of a project waits for its first build.
   */
  async get(scope: ProjectScope): Promise<SchemaAnswer> {
    const id = `${scope.organizationId}/${scope.projectId}`;
    let slot = this.slots.get(id);
    if (slot) {
      // Most recently used last: the map's first project is the one to drop.
      this.slots.delete(id);
      this.slots.set(id, slot);
    } else {
      this.slots.set(id, (slot = { events: 0, stale: false }));
      if (this.slots.size > MAX_PROJECTS) this.slots.delete(this.slots.keys().next().value!);
    }
    if (slot.current) {
      if (slot.stale && !slot.loading) this.refresh(scope, slot);
      return { schema: slot.current, fresh: !slot.stale };
    }
    const schema = await (slot.loading ?? this.load(scope, slot));
    return { schema, fresh: !slot.stale };
  }

  /**
   * A content type of the project was created, changed, published, unpublished or deleted: rebuild in the background
   * (only when the versions of its published types changed). Projects not served here are left alone.
   */
  changed(scope: ProjectScope): void {
    const slot = this.slots.get(`${scope.organizationId}/${scope.projectId}`);
    if (!slot) return;
    slot.events++;
    slot.stale = true;
    if (!slot.loading) this.refresh(scope, slot);
  }

  /** A load in the background: its failure is logged and retried by the next request. */
  private refresh(scope: ProjectScope, slot: Slot): void {
    void this.load(scope, slot).catch(() => undefined);
  }

  private load(scope: ProjectScope, slot: Slot): Promise<ServedSchema> {
    const seen = slot.events;
    const loading = (async () => {
      try {
        const types = await publishedTypes(this.em(), scope);
        const key = versionKey(types);
        if (slot.current?.key !== key) {
          slot.current = served(buildTypedSchema(types), key);
        }
        // Read after every event seen when it started: up to date unless another came meanwhile.
        if (slot.events === seen) slot.stale = false;
        return slot.current;
      } catch (err) {
        this.logger?.warn({ err, projectId: scope.projectId }, 'building a typed GraphQL schema failed');
        throw err;
      } finally {
        slot.loading = undefined;
        // An event came during the load: load again.
        if (slot.stale && slot.events !== seen) this.refresh(scope, slot);
      }
    })();
    slot.loading = loading;
    return loading;
  }
}
