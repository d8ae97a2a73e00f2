// Localized properties: a document stores one value per locale of each; a read answers one locale through its fallback
// chain (or every locale, `*`), a write changes one locale's values (or every locale's).
import { ValidationFailedError, type FieldError } from '@cp/errors';
import {
  ALL_LOCALES,
  DEFAULT_LOCALES,
  localeRequest,
  type Context,
  type LocaleRequest,
  type ProjectLocale,
  type ProjectScope,
} from '@cp/graphql';
import { readProjectLocales } from '@cp/db';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { typeVersionsOf, type FrozenTypeVersion } from '../content-type/type-versions';
import { compileContent } from './content-compile';
import type { Content } from './content.entity';

/** On an entry read for a locale: the request it was read for (`locale` on the answer, and what its links follow). */
export const LOCALE = Symbol('locale');
/** On an entry whose document was localized: the stored document, every locale's values (a sort's cursor reads it). */
export const STORED = Symbol('stored');

export type LocalizedEntry = Content & { [LOCALE]?: LocaleRequest; [STORED]?: Record<string, unknown> };

type Document = Record<string, unknown>;

const isObject = (value: unknown): value is Document =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The project's locales as this replica knows them (cached, dropped by the project's events). */
export async function projectLocales(ctx: Context, scope: ProjectScope): Promise<readonly ProjectLocale[]> {
  return (await ctx.projects.locales(scope.organizationId, scope.projectId)) ?? DEFAULT_LOCALES;
}

/** The request's `locale` resolved against the project's locales (400 naming `locale` when it has no such code). */
export async function requestLocale(ctx: Context, scope: ProjectScope, requested?: string | null) {
  return localeRequest(await projectLocales(ctx, scope), requested);
}

/**
 * The project's default locale, read in the caller's transaction: for writes without a request's `locale` (publish,
 * migrate), which need the project's current list, not a cached one.
 */
export async function projectLocale(em: EntityManager, scope: ProjectScope): Promise<LocaleRequest> {
  return localeRequest((await readProjectLocales(em, scope.organizationId, scope.projectId)) ?? DEFAULT_LOCALES);
}

/** The request for the project's default locale, which has no fallback: what the stored module and validation use. */
export function inDefault({ codes, defaultCode }: LocaleRequest): LocaleRequest {
  return { code: defaultCode, chain: [defaultCode], codes, defaultCode };
}

/**
 * A stored document moved to a type version that localizes other properties: a newly localized property's value
 * becomes the default locale's, and a property no longer localized keeps the default locale's value.
 */
export function reshapeLocalized(
  stored: Document,
  from: readonly string[],
  to: readonly string[],
  defaultCode: string,
): Document {
  if (from.length === 0 && to.length === 0) return stored;
  const out: Document = {};
  for (const [key, value] of Object.entries(stored)) {
    const was = from.includes(key);
    const is = to.includes(key);
    if (was === is) out[key] = value;
    else if (is) {
      if (value !== null) out[key] = { [defaultCode]: value };
    } else if (isObject(value) && Object.hasOwn(value, defaultCode)) out[key] = value[defaultCode];
  }
  return out;
}

/** A localized property's value in the request's locale: the first locale of the chain that has one. */
export function valueIn(values: unknown, request: Pick<LocaleRequest, 'chain'>): unknown {
  if (!isObject(values)) return undefined;
  const code = request.chain.find((c) => Object.hasOwn(values, c));
  return code === undefined ? undefined : values[code];
}

/**
 * The stored document as read in `request`'s locale: each localized property answers its value in the locale's
 * chain, or is left out; with `*` the map of the project's current locales that have a value. A removed locale's
 * values are never served. Other properties are answered as stored, in the stored order.
 */
export function localizedDocument(stored: Document, keys: readonly string[], request: LocaleRequest): Document {
  if (keys.length === 0) return stored;
  const out: Document = {};
  for (const [key, value] of Object.entries(stored)) {
    if (!keys.includes(key)) out[key] = value;
    else if (request.code === ALL_LOCALES) {
      if (!isObject(value)) continue;
      const current = request.codes.filter((c) => Object.hasOwn(value, c));
      if (current.length > 0) out[key] = Object.fromEntries(current.map((c) => [c, value[c]]));
    } else {
      const one = valueIn(value, request);
      if (one !== undefined) out[key] = one;
    }
  }
  return out;
}

/**
 * The document to store for a write of `input` in `request`'s locale over `current` (`{}` on create). A localized
 * property takes the input's value for that locale (`null` or absence removes it, so reads fall back) and keeps every
 * other locale's; with `*` it takes the input's map whole. Other properties are the input's, as without locales.
 */
export function mergeLocalized(
  current: Document,
  input: Document,
  keys: readonly string[],
  request: LocaleRequest,
): Document {
  if (keys.length === 0) return input;
  const all = request.code === ALL_LOCALES;
  const errors: FieldError[] = [];
  const out: Document = {};
  for (const [key, value] of Object.entries(input)) {
    if (!keys.includes(key)) out[key] = value;
    else if (all) {
      if (value === null) continue;
      if (!isObject(value)) {
        errors.push({ path: `/${key}`, message: 'must be an object of locale code → value (`locale=*`)' });
        continue;
      }
      for (const code of Object.keys(value))
        if (!request.codes.includes(code))
          errors.push({ path: `/${key}/${code}`, message: 'is not a locale of the project' });
      const values = Object.entries(value).filter(([, v]) => v !== null);
      if (values.length > 0) out[key] = Object.fromEntries(values);
    }
  }
  if (errors.length > 0) throw new ValidationFailedError(errors);
  if (all) return out;
  for (const key of keys) {
    const values: Document = isObject(current[key]) ? { ...current[key] } : {};
    const value = input[key];
    if (value === undefined || value === null) delete values[request.code];
    else values[request.code] = value;
    if (Object.keys(values).length > 0) out[key] = values;
  }
  return out;
}

/**
 * The documents a stored document is validated as: the default locale's (every rule of the schema applies), and for
 * each other locale with values of its own, the default's with those values in place; `own` lists them, so an error
 * of that document is reported under `/<property>/<locale>`.
 */
export function documentsToValidate(
  stored: Document,
  keys: readonly string[],
  request: LocaleRequest,
): { code: string; document: Document; own: string[] }[] {
  const base = localizedDocument(stored, keys, inDefault(request));
  const documents = [{ code: request.defaultCode, document: base, own: [] as string[] }];
  for (const code of request.codes) {
    if (code === request.defaultCode) continue;
    const own = keys.filter((key) => isObject(stored[key]) && Object.hasOwn(stored[key], code));
    if (own.length === 0) continue;
    const document = { ...base };
    for (const key of own) document[key] = (stored[key] as Document)[code];
    documents.push({ code, document, own });
  }
  return documents;
}

/** Modules built for a locale other than the stored one's: by entry state and locale request, bounded by bytes. */
const modules = new LRUCache<string, string>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (m, k) => m.length + k.length,
});

/**
 * Localizes entries read from the database in place (they are the reader's own plain rows): the documents of types
 * with localized properties, and their `compiled` module, built for the request's locale (the stored module is the
 * default locale's as of the last write) and kept per entry state and locale. Every entry is marked with the request.
 */
export async function localizeRows(
  em: EntityManager,
  rows: LocalizedEntry[],
  request: LocaleRequest,
  { compiled, published }: { compiled: boolean; published: boolean },
): Promise<void> {
  if (rows.length === 0) return;
  const types = await typeVersionsOf(em, rows);
  for (const row of rows) {
    row[LOCALE] = request;
    const type = types.get(`${row.typeId}:${row.typeVersion}`);
    if (!type?.localized.length || !isObject(row.content)) continue;
    row[STORED] = row.content;
    row.content = localizedDocument(row.content, type.localized, request);
    if (compiled && row.compiled !== undefined) row.compiled = await moduleIn(em, row, type, request, published);
  }
}

async function moduleIn(
  em: EntityManager,
  row: LocalizedEntry,
  type: FrozenTypeVersion,
  request: LocaleRequest,
  published: boolean,
): Promise<string> {
  // A published row's version never changes. A working row's revision can come back with other content (an import
  // copies it from the archive); its revision together with its last change's time cannot.
  const changed = published ? '' : new Date(row.updatedAt).getTime();
  const state = `${published ? 'published' : 'working'}:${row.id}:${row.revision}:${changed}:${row.packageVersion}`;
  const key = `${state}\0${request.code}\0${request.chain.join('>')}\0${request.codes.join(',')}`;
  const cached = modules.get(key);
  if (cached !== undefined) return cached;
  const scope = { organizationId: row.organizationId, projectId: row.projectId };
  const built = await compileContent(em, scope, row, type.content.layoutComponentId);
  modules.set(key, built);
  return built;
}
