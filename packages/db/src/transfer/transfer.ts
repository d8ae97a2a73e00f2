// Project transfer (export/import) shared by the subgraphs: rows as plain JSON, and an import that keeps ids and is idempotent.
import { ReferenceKind } from '@mikro-orm/core';
import type { EntityClass, EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Readable } from 'node:stream';
import { recordEvent } from '../events/record-event';
import type { EventResourceType } from '../events/event.entity';

/** One exported row: every persisted scalar column by property name, dates as ISO strings. */
export type TransferRecord = Record<string, unknown> & { id: string };

/** The rows of one subgraph's part of an archive, by kind (each kind is one `data/<kind>.json` file). */
export type TransferData = Record<string, TransferRecord[]>;

/** A file (asset bytes) that goes into the archive as `files/<path>`. */
export interface ExportedFile {
  path: string;
  read(): Promise<Readable>;
}

/** A file an import must put into storage; written by the caller after every row is in, removed again on failure. */
export interface PendingFile {
  /** Archive path under `files/`. */
  path: string;
  /** Storage key. */
  key: string;
  /** sha256 the stored bytes must have. */
  checksum: string;
  put(key: string, body: Readable): Promise<{ checksum: string }>;
  remove(key: string): Promise<void>;
}

export interface TransferScope {
  organizationId: string;
  projectId: string;
}

/** Counts per kind: rows added, rows changed to match the archive, rows already identical. */
export type ImportSummary = Record<string, { inserted: number; updated: number; unchanged: number }>;

export interface ImportOptions {
  /** Actor of the import's events; null when an operator imports from the command line. */
  actorId?: string | null;
  /** Paths of the archive's files (under `files/`). */
  files: ReadonlySet<string>;
}

/** One subgraph's part of a project transfer; the owning subgraph implements it so its rules stay in one place. */
export interface ProjectTransfer {
  name: string;
  kinds: readonly string[];
  export(em: EntityManager, scope: TransferScope): Promise<{ data: TransferData; files: ExportedFile[] }>;
  /** Problems with the archive's data (pure, before anything is written); `files` are the archive's file paths. */
  validate(data: TransferData, files: ReadonlySet<string>): string[];
  /** Writes rows and their events into `em`'s transaction; returns what changed and the files still to store. */
  import(
    em: EntityManager,
    scope: TransferScope,
    data: TransferData,
    options: ImportOptions,
  ): Promise<{ summary: ImportSummary; files: PendingFile[] }>;
}

/** Refusal of an import whose rows clash with the target (ids of another project, a different immutable version). */
export class TransferConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransferConflictError';
  }
}

interface Column {
  name: string;
  date: boolean;
}

function columns(em: EntityManager, entity: EntityClass<object>, omit: readonly string[]): Column[] {
  const meta = em.getMetadata().get(entity.name);
  return meta.props
    .filter((p) => p.kind === ReferenceKind.SCALAR && p.persist !== false && !omit.includes(p.name))
    .map((p) => ({ name: p.name, date: p.runtimeType === 'Date' || /timestamp|date/i.test(String(p.type)) }));
}

function encode(row: object, cols: Column[]): TransferRecord {
  const out: Record<string, unknown> = {};
  for (const c of cols) {
    const value = (row as Record<string, unknown>)[c.name];
    out[c.name] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return out as TransferRecord;
}

function decode(record: TransferRecord, cols: Column[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of cols) {
    const value = record[c.name];
    out[c.name] = c.date && typeof value === 'string' ? new Date(value) : (value ?? null);
  }
  return out;
}

/** JSON with sorted keys: jsonb reorders object members, so equality must not depend on their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Every row of `entity` matching `where`, oldest first, as plain records (`omit` leaves columns out, e.g. secrets). */
export async function exportRows<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  where: FilterQuery<T>,
  omit: readonly string[] = [],
): Promise<TransferRecord[]> {
  const cols = columns(em, entity as EntityClass<object>, omit);
  const rows = await em.fork().find(entity, where, { orderBy: { id: 'asc' } as never });
  return rows.map((row) => encode(row, cols));
}

export interface SyncOptions {
  scope: TransferScope;
  /** Version rows: never updated; a row with the same id but other data is a conflict. */
  immutable?: boolean;
  /** Columns not imported and not compared (e.g. a secret the target generates itself). */
  omit?: readonly string[];
  /** Columns compared for existing rows but kept as the target has them (e.g. `active` of an imported webhook). */
  keep?: readonly string[];
  /** Values for inserted rows only. */
  onInsert?: (row: Record<string, unknown>) => Record<string, unknown>;
  /** Whether the entity carries organizationId/projectId (rewritten to the target's). */
  scoped?: boolean;
  label: string;
}

export interface SyncResult {
  inserted: TransferRecord[];
  /** Each changed row as imported, with the target's values before the import. */
  updated: { record: TransferRecord; previous: TransferRecord }[];
  unchanged: number;
}

const CHUNK = 500;

/**
 * Makes the target hold `records` with their original ids, in `em`'s transaction: missing rows are inserted,
 * rows that differ are updated (not version rows), identical rows are left alone, so importing twice changes
 * nothing the second time. A row of another project under the same id refuses the import.
 */
export async function syncRows<T extends { id: string }>(
  em: EntityManager,
  entity: EntityClass<T>,
  records: TransferRecord[],
  options: SyncOptions,
): Promise<SyncResult> {
  const omit = options.omit ?? [];
  const cols = columns(em, entity as EntityClass<object>, omit);
  const scoped = options.scoped ?? true;
  const result: SyncResult = { inserted: [], updated: [], unchanged: 0 };
  for (let i = 0; i < records.length; i += CHUNK) {
    const chunk = records.slice(i, i + CHUNK);
    const existing = await em.find(entity, { id: { $in: chunk.map((r) => r.id) } } as unknown as FilterQuery<T>, {
      disableIdentityMap: true,
    });
    const byId = new Map(existing.map((row) => [(row as unknown as { id: string }).id, row]));
    const inserts: Record<string, unknown>[] = [];
    for (const record of chunk) {
      const wanted = scoped ? { ...record, ...options.scope } : record;
      const found = byId.get(record.id) as (T & { organizationId?: string; projectId?: string }) | undefined;
      if (!found) {
        const row = decode(wanted, cols);
        inserts.push(options.onInsert ? { ...row, ...options.onInsert(row) } : row);
        result.inserted.push(wanted);
        continue;
      }
      if (
        scoped &&
        (found.organizationId !== options.scope.organizationId || found.projectId !== options.scope.projectId)
      ) {
        throw new TransferConflictError(
          `${options.label} ${record.id} already exists in project ${found.organizationId}/${found.projectId}; ids are kept on import, so an archive can go into one project per installation.`,
        );
      }
      const compared = cols.filter((c) => !(options.keep ?? []).includes(c.name));
      const have = encode(found, compared);
      const want = encode(decode(wanted, compared), compared);
      if (canonicalJson(have) === canonicalJson(want)) {
        result.unchanged++;
        continue;
      }
      if (options.immutable) {
        throw new TransferConflictError(
          `${options.label} ${record.id} exists in the target with different data; published versions never change.`,
        );
      }
      const changes = decode(wanted, compared);
      delete changes.id;
      await em.nativeUpdate(entity, { id: record.id } as unknown as FilterQuery<T>, changes as never);
      result.updated.push({ record: wanted, previous: have });
    }
    if (inserts.length) await em.insertMany(entity, inserts as never[]);
  }
  return result;
}

/** Structural checks shared by the subgraphs' `validate`: an array of objects with unique string ids. */
export function checkRecords(data: TransferData, kind: string, required: readonly string[] = []): string[] {
  const rows = data[kind];
  if (!Array.isArray(rows)) return [`data/${kind}.json: must be an array`];
  const problems: string[] = [];
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    if (!row || typeof row !== 'object' || Array.isArray(row))
      return void problems.push(`data/${kind}.json[${i}]: must be an object`);
    if (typeof row.id !== 'string' || row.id === '' || row.id.length > 64)
      problems.push(`data/${kind}.json[${i}].id: must be a string of 1–64 characters`);
    else if (seen.has(row.id)) problems.push(`data/${kind}.json[${i}].id: duplicate id ${row.id}`);
    else seen.add(row.id);
    for (const field of required) {
      if (row[field] === undefined || row[field] === null)
        problems.push(`data/${kind}.json[${i}].${field}: is required`);
    }
  });
  return problems;
}

/** Version rows must point at a record of the archive and be unique per record and number. */
export function checkVersions(data: TransferData, kind: string, headKind: string, key: string): string[] {
  const heads = new Set((data[headKind] ?? []).map((r) => r.id));
  const problems: string[] = [];
  const numbers = new Set<string>();
  (data[kind] ?? []).forEach((row, i) => {
    if (!heads.has(row[key] as string))
      problems.push(`data/${kind}.json[${i}].${key}: ${String(row[key])} is not in data/${headKind}.json`);
    if (!Number.isInteger(row.version) || (row.version as number) < 1)
      problems.push(`data/${kind}.json[${i}].version: must be a positive integer`);
    const k = `${String(row[key])}@${String(row.version)}`;
    if (numbers.has(k))
      problems.push(`data/${kind}.json[${i}]: version ${String(row.version)} of ${String(row[key])} appears twice`);
    numbers.add(k);
  });
  return problems;
}

/** The published state API keys can see: a `published` or `modified` record shows its last published version. */
const visibleVersion = (r: TransferRecord) =>
  (r.status === 'published' || r.status === 'modified') && typeof r.lastPublishedVersion === 'number'
    ? r.lastPublishedVersion
    : null;

/**
 * The events the API would have written for what an import changed: `created` for a new record, `updated`
 * for a changed one, and `published` (visible to API keys) when the published version it shows is new.
 */
export function recordImportEvents(
  em: EntityManager,
  resourceType: EventResourceType,
  result: SyncResult,
  scope: TransferScope,
  actorId?: string | null,
): void {
  const base = { resourceType, ...scope, actorId: actorId ?? null };
  for (const record of result.inserted) {
    recordEvent(em, { ...base, action: 'created', resourceId: record.id });
    const version = visibleVersion(record);
    if (version !== null)
      recordEvent(em, { ...base, action: 'published', resourceId: record.id, version, published: true });
  }
  for (const { record, previous } of result.updated) {
    recordEvent(em, { ...base, action: 'updated', resourceId: record.id });
    const version = visibleVersion(record);
    if (version !== null && version !== visibleVersion(previous)) {
      recordEvent(em, { ...base, action: 'published', resourceId: record.id, version, published: true });
    }
  }
}

/** Summary line of one kind. */
export const summarize = (result: SyncResult) => ({
  inserted: result.inserted.length,
  updated: result.updated.length,
  unchanged: result.unchanged,
});

/** The part of a file store (`@cp/storage`'s AssetStorage, on local disk or in a bucket) that transfers use. */
export interface TransferFileStore {
  open(key: string): Promise<{ body: Readable } | null>;
  exists(key: string): Promise<boolean>;
  put(key: string, body: Readable, maxBytes: number): Promise<{ checksum: string }>;
  remove(key: string): Promise<void>;
}

/** The stored bytes of `rows` as archive files `<folder>/<id>`; rows whose bytes are gone (error, deleted) are skipped. */
export async function exportFiles(
  store: TransferFileStore,
  folder: string,
  rows: TransferRecord[],
  keyOf: (row: TransferRecord) => string,
): Promise<ExportedFile[]> {
  const files: ExportedFile[] = [];
  for (const row of rows) {
    const key = keyOf(row);
    if (!row.checksum || !(await store.exists(key))) continue;
    const read = async () => {
      const opened = await store.open(key);
      if (!opened) throw new Error(`the stored bytes of ${folder}/${row.id} were removed during the export`);
      return opened.body;
    };
    files.push({ path: `${folder}/${row.id}`, read });
  }
  return files;
}

/** Files of an import still to store: bytes of new rows, of rows whose checksum changed, and bytes missing from the store. */
export async function pendingFiles(
  store: TransferFileStore,
  folder: string,
  records: TransferRecord[],
  result: SyncResult,
  archiveFiles: ReadonlySet<string>,
  keyOf: (row: TransferRecord) => string,
): Promise<PendingFile[]> {
  const changed = new Set([
    ...result.inserted.map((r) => r.id),
    ...result.updated.filter((u) => u.record.checksum !== u.previous.checksum).map((u) => u.record.id),
  ]);
  const pending: PendingFile[] = [];
  for (const record of records) {
    const path = `${folder}/${record.id}`;
    if (!archiveFiles.has(path)) continue;
    const key = keyOf(record);
    if (!changed.has(record.id) && (await store.exists(key))) continue;
    pending.push({
      path,
      key,
      checksum: String(record.checksum),
      put: (k, body) => store.put(k, body, Number.MAX_SAFE_INTEGER),
      remove: (k) => store.remove(k),
    });
  }
  return pending;
}

/** Every archive file under `<folder>/` must belong to a row of `kind` that records its sha256. */
export function checkFiles(data: TransferData, kind: string, folder: string, files: ReadonlySet<string>): string[] {
  const rows = new Map((data[kind] ?? []).map((r) => [r.id, r]));
  const problems: string[] = [];
  for (const path of files) {
    if (!path.startsWith(`${folder}/`)) continue;
    const row = rows.get(path.slice(folder.length + 1));
    if (!row) problems.push(`files/${path}: no row of data/${kind}.json has this id`);
    else if (typeof row.checksum !== 'string' || !/^[0-9a-f]{64}$/.test(row.checksum))
      problems.push(`data/${kind}.json ${row.id}: checksum must be a sha256`);
  }
  return problems;
}
