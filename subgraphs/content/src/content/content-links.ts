// References between entries: the `reference` keyword of a type's schema, the links a document holds, and their table.
import { AppError, ValidationFailedError, type FieldError } from '@cp/errors';
import { lockReferenceTargets, sql } from '@cp/db';
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { forEachSubschema, isLocalized, pointerSegment as segment } from '../shared/json-schema';

/** What a reference may point to: an entry (of any type, or of `typeIds`), or an asset. */
export interface ReferenceRule {
  kind: 'content' | 'asset';
  typeIds?: string[];
}

/** One reference in a document: where it stands (a JSON Pointer) and what it names. */
export interface Link {
  path: string;
  kind: 'content' | 'asset';
  targetId: string;
}

type SchemaNode = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema's `reference` as a rule, or undefined when the node is no reference. Assumes a checked schema. */
function ruleOf(node: SchemaNode): ReferenceRule | undefined {
  const reference = node.reference;
  if (!isObject(reference)) return undefined;
  if (reference.to === 'asset') return { kind: 'asset' };
  return Array.isArray(reference.typeIds)
    ? { kind: 'content', typeIds: reference.typeIds as string[] }
    : { kind: 'content' };
}

/**
 * The references of a document, in document order (the order of the schema's properties, then array positions). A
 * reference is a property at any depth, or an array's `items` (or `prefixItems`), whose schema holds `reference`;
 * `allOf` branches count too. Values that are not strings are the JSON Schema validation's to refuse.
 */
export function collectLinks(schema: Record<string, unknown>, document: Record<string, unknown>): Link[] {
  return collectRuled(schema, document).map(({ path, kind, targetId }) => ({ path, kind, targetId }));
}

/** Like `collectLinks`, with each reference's allowed types (for validating the targets). */
function collectRuled(schema: Record<string, unknown>, document: Record<string, unknown>) {
  const { components: _components, ...data } = document;
  const links: (Link & { typeIds?: string[] })[] = [];
  walk(schema, data, '', links, true);
  return links;
}

/**
 * `top`: the document itself, whose localized properties hold a value per locale (`/<property>/<locale>/…`): a
 * localized reference links to every locale's target, so integrity holds for each.
 */
function walk(node: unknown, value: unknown, path: string, out: (Link & { typeIds?: string[] })[], top = false): void {
  if (!isObject(node) || value === undefined) return;
  const rule = ruleOf(node);
  if (rule && typeof value === 'string') out.push({ path, kind: rule.kind, targetId: value, typeIds: rule.typeIds });
  if (Array.isArray(node.allOf)) for (const branch of node.allOf) walk(branch, value, path, out);
  if (isObject(value) && isObject(node.properties)) {
    for (const [key, property] of Object.entries(node.properties)) {
      if (!Object.hasOwn(value, key)) continue;
      const at = `${path}/${segment(key)}`;
      const perLocale = value[key];
      if (top && isLocalized(property) && isObject(perLocale))
        for (const [code, one] of Object.entries(perLocale)) walk(property, one, `${at}/${segment(code)}`, out);
      else walk(property, value[key], at, out);
    }
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : [];
    value.forEach((item, i) => walk(i < prefix.length ? prefix[i] : node.items, item, `${path}/${i}`, out));
  }
}

/**
 * A type's schema may hold `reference` wherever a subschema stands: `{}`, `{"typeIds": [ids]}` or `{"to": "asset"}`.
 * Anything else inside it is refused (422) with the pointer of the offending member, before the schema is saved.
 */
export function assertReferenceKeywords(schema: unknown, path = '/schema'): void {
  const errors: FieldError[] = [];
  forEachSubschema(schema, path, (node, at) => {
    if (node.reference !== undefined) errors.push(...checkReference(node.reference, `${at}/reference`));
  });
  if (errors.length > 0) throw new ValidationFailedError(errors, 'The schema holds an invalid `reference`.');
}

function checkReference(reference: unknown, path: string): FieldError[] {
  if (!isObject(reference)) return [{ path, message: 'must be an object: {}, {"typeIds": [...]} or {"to": "asset"}' }];
  const errors: FieldError[] = [];
  for (const key of Object.keys(reference)) {
    if (key !== 'typeIds' && key !== 'to') errors.push({ path: `${path}/${segment(key)}`, message: 'is not allowed' });
  }
  if (reference.to !== undefined && reference.to !== 'asset')
    errors.push({ path: `${path}/to`, message: 'must be "asset"' });
  if (reference.typeIds !== undefined) {
    const ids = reference.typeIds;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && id.length > 0))
      errors.push({ path: `${path}/typeIds`, message: 'must be a non-empty array of content type ids' });
    else if (reference.to !== undefined)
      errors.push({ path: `${path}/typeIds`, message: 'applies to entries, not assets' });
  }
  return errors;
}

/** One placeholder per value (never called with none). */
const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/**
 * The document's references, checked against the project: each must name an entry that is not deleted (of an allowed
 * type), or an asset that is not deleted. The targets' reference locks are taken (shared) before they are read, so a
 * delete of one of them waits for this write and then sees its links, or this write waits for the delete and refuses
 * (`lockReferenceTargets`). Returns the links.
 */
export async function checkedLinks(
  em: EntityManager,
  scope: ProjectScope,
  schema: Record<string, unknown>,
  document: Record<string, unknown>,
): Promise<Link[]> {
  const links = collectRuled(schema, document);
  if (links.length === 0) return [];
  const ids = (kind: Link['kind']) => [...new Set(links.filter((l) => l.kind === kind).map((l) => l.targetId))];
  const entryIds = ids('content');
  const assetIds = ids('asset');
  await lockReferenceTargets(em, [...entryIds, ...assetIds], 'shared');
  const entries = entryIds.length
    ? await sql<{ id: string; type_id: string }>(
        em,
        `select "id", "type_id" from "content" where "id" in (${marks(entryIds)}) and "organization_id" = ? and "project_id" = ?
          and "status" <> 'deleted'`,
        [...entryIds, scope.organizationId, scope.projectId],
      )
    : [];
  const assets = assetIds.length
    ? await sql<{ id: string }>(
        em,
        `select "id" from "asset" where "id" in (${marks(assetIds)}) and "organization_id" = ? and "project_id" = ?
          and "status" <> 'deleted'`,
        [...assetIds, scope.organizationId, scope.projectId],
      )
    : [];
  const typeOf = new Map(entries.map((e) => [e.id, e.type_id]));
  const knownAssets = new Set(assets.map((a) => a.id));
  const errors: FieldError[] = [];
  for (const link of links) {
    if (link.kind === 'asset') {
      if (!knownAssets.has(link.targetId)) errors.push({ path: link.path, message: 'names no asset of this project' });
      continue;
    }
    const type = typeOf.get(link.targetId);
    if (type === undefined) errors.push({ path: link.path, message: 'names no entry of this project' });
    else if (link.typeIds && !link.typeIds.includes(type))
      errors.push({
        path: link.path,
        message: `names an entry of a type not allowed here (allowed: ${link.typeIds.join(', ')})`,
      });
  }
  if (errors.length > 0) throw new ValidationFailedError(errors, 'A reference names nothing it may point to.');
  return links.map(({ path, kind, targetId }) => ({ path, kind, targetId }));
}

/**
 * Replaces an entry's working links (none for a deleted entry), in the transaction that writes its document.
 * `previous`: the links of the document being replaced, whose rows the table holds; when they are the same links in
 * the same order, the rows already say what `links` would write, and the statements are left out (an edit of an
 * entry's text costs a round trip less).
 */
export async function writeWorkingLinks(
  em: EntityManager,
  scope: ProjectScope,
  entryId: string,
  links: Link[],
  previous?: Link[],
): Promise<void> {
  if (previous && sameLinks(previous, links)) return;
  await sql(em, `delete from "content_link" where "from_id" = ? and "scope" = 'working'`, [entryId]);
  if (links.length === 0) return;
  const rows = links.map(() => `(?, ?, ?, 'working', ?, ?, ?, ?)`).join(', ');
  const params = links.flatMap((l, i) => [
    scope.organizationId,
    scope.projectId,
    entryId,
    l.kind,
    l.targetId,
    l.path,
    i,
  ]);
  await sql(
    em,
    `insert into "content_link" ("organization_id", "project_id", "from_id", "scope", "target_kind", "target_id", "path", "position")
      values ${rows} on conflict do nothing`,
    params,
  );
}

const sameLinks = (a: Link[], b: Link[]) =>
  a.length === b.length &&
  a.every((l, i) => l.path === b[i].path && l.kind === b[i].kind && l.targetId === b[i].targetId);

/** At most this many referrers are named when a delete is refused. */
const MAX_REFERRERS = 100;

/**
 * Refuses (409 `CONTENT_REFERENCED`) to delete an entry or an asset that another entry references, in its working
 * copy or its published version. Links exist for entries that are not deleted only, so one index probe answers. The
 * target's reference lock (exclusive) makes a write referencing it wait for this delete, or this delete for it.
 */
export async function assertNotReferenced(
  em: EntityManager,
  scope: ProjectScope,
  targetId: string,
  kind: 'content' | 'asset',
): Promise<void> {
  await lockReferenceTargets(em, [targetId], 'exclusive');
  const rows = await sql<{ from_id: string }>(
    em,
    `select distinct "from_id" from "content_link" where "target_id" = ? and "project_id" = ? and "organization_id" = ?
      and "target_kind" = ? and "from_id" <> ? order by "from_id" limit ${MAX_REFERRERS}`,
    [targetId, scope.projectId, scope.organizationId, kind, targetId],
  );
  if (rows.length === 0) return;
  const what = kind === 'asset' ? 'asset' : 'entry';
  throw new AppError(
    'CONTENT_REFERENCED',
    `The ${what} is referenced by other entries; remove those references first.`,
    {
      referencedBy: rows.map((r) => r.from_id),
    },
  );
}

/**
 * The assets each of `ids` references in one scope, in document order, each once, leaving out deleted assets (they
 * resolve to nothing). The asset table is the assets module's, read here with its status only.
 */
export async function linkedAssets(
  em: EntityManager,
  scope: ProjectScope,
  ids: readonly string[],
  linkScope: 'working' | 'published',
): Promise<Map<string, string[]>> {
  const rows = ids.length
    ? await sql<{ from_id: string; target_id: string }>(
        em,
        `select l."from_id", l."target_id" from "content_link" l
          join "asset" a on a."id" = l."target_id" and a."project_id" = l."project_id" and a."status" <> 'deleted'
          where l."from_id" in (${marks(ids)}) and l."scope" = ? and l."target_kind" = 'asset' and l."project_id" = ?
            and l."organization_id" = ?
          order by l."from_id", l."position"`,
        [...ids, linkScope, scope.projectId, scope.organizationId],
      )
    : [];
  const result = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const row of rows) {
    const list = result.get(row.from_id)!;
    if (!list.includes(row.target_id)) list.push(row.target_id);
  }
  return result;
}

/** Links of the entries `ids` in one scope (`working` or `published`), each entry's in document order. */
export async function linksOf(
  em: EntityManager,
  scope: ProjectScope,
  ids: readonly string[],
  linkScope: 'working' | 'published',
): Promise<{ from_id: string; target_kind: string; target_id: string }[]> {
  return sql(
    em,
    `select "from_id", "target_kind", "target_id" from "content_link"
      where "from_id" in (${marks(ids)}) and "scope" = ? and "project_id" = ? and "organization_id" = ?
      order by "from_id", "position"`,
    [...ids, linkScope, scope.projectId, scope.organizationId],
  );
}

/** Which of the assets `ids` exist in the project and are not deleted (one query; none for no ids). */
export async function liveAssetIds(em: EntityManager, scope: ProjectScope, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await sql<{ id: string }>(
    em,
    `select "id" from "asset" where "id" in (${marks(ids)}) and "organization_id" = ? and "project_id" = ?
      and "status" <> 'deleted'`,
    [...ids, scope.organizationId, scope.projectId],
  );
  return rows.map((r) => r.id);
}
