// Export and import of the content subgraph's part of a project: types and entries with every version, tags, folders, saved searches, webhooks.
import {
  checkRecords,
  checkVersions,
  exportRows,
  recordImportEvents,
  summarize,
  sql,
  syncRows,
  type ImportOptions,
  type ImportSummary,
  type ProjectTransfer,
  type TransferData,
  type TransferRecord,
  type TransferScope,
} from '@cp/db';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { ContentTypeVersion } from '../content-type/content-type-version.entity';
import { ContentType } from '../content-type/content-type.entity';
import { Content, ContentVersion } from '../content/content.entity';
import { collectLinks, writeWorkingLinks } from '../content/content-links';
import { Folder } from '../folder/folder.entity';
import { SavedSearch } from '../saved-search/saved-search.entity';
import { Tag } from '../tag/tag.entity';
import type { SecretBox } from '../webhook/secret-box';
import { Webhook } from '../webhook/webhook.entity';

const KINDS = [
  'contentTypes',
  'contentTypeVersions',
  'content',
  'contentVersions',
  'tags',
  'folders',
  'savedSearches',
  'webhooks',
] as const;

/**
 * Rows are copied as they are, versions included, so an imported project serves the same published content
 * (its `compiled` modules too) and keeps its history; the API's create/publish would make new drafts and new
 * version numbers instead. Version rows are only ever inserted (the database refuses UPDATE and DELETE on them).
 */
export class ContentTransferService implements ProjectTransfer {
  readonly name = 'content';
  readonly kinds = KINDS;

  /** `box` seals the signing secret an imported webhook gets: archives never carry secrets. */
  constructor(private readonly box: SecretBox) {}

  async export(em: EntityManager, scope: TransferScope) {
    const inProject = { organizationId: scope.organizationId, projectId: scope.projectId };
    const data: TransferData = {
      contentTypes: await exportRows(em, ContentType, inProject),
      contentTypeVersions: await exportRows(em, ContentTypeVersion, inProject),
      content: await exportRows(em, Content, inProject),
      contentVersions: await exportRows(em, ContentVersion, inProject),
      tags: await exportRows(em, Tag, inProject),
      folders: await exportRows(em, Folder, inProject),
      savedSearches: await exportRows(em, SavedSearch, inProject),
      webhooks: await exportRows(em, Webhook, inProject, ['secretCiphertext']),
    };
    return { data, files: [] };
  }

  validate(data: TransferData): string[] {
    return [
      ...checkRecords(data, 'contentTypes', ['name', 'status', 'schema']),
      ...checkRecords(data, 'contentTypeVersions', ['contentTypeId', 'version', 'content']),
      ...checkRecords(data, 'content', ['typeId', 'name', 'status', 'content']),
      ...checkRecords(data, 'contentVersions', ['contentId', 'version', 'content']),
      ...checkRecords(data, 'tags', ['name']),
      ...checkRecords(data, 'folders', ['name', 'path']),
      ...checkRecords(data, 'savedSearches', ['name', 'query']),
      ...checkRecords(data, 'webhooks', ['url']),
      ...checkVersions(data, 'contentTypeVersions', 'contentTypes', 'contentTypeId'),
      ...checkVersions(data, 'contentVersions', 'content', 'contentId'),
    ];
  }

  async import(em: EntityManager, scope: TransferScope, data: TransferData, options: ImportOptions) {
    const summary: ImportSummary = {};
    const actorId = options.actorId;
    const types = await syncRows(em, ContentType, data.contentTypes, { scope, label: 'content type' });
    summary.contentTypeVersions = summarize(
      await syncRows(em, ContentTypeVersion, data.contentTypeVersions, {
        scope,
        immutable: true,
        label: 'content type version',
      }),
    );
    recordImportEvents(em, 'content-types', types, scope, actorId);
    summary.contentTypes = summarize(types);
    const entries = await syncRows(em, Content, data.content, { scope, label: 'content entry' });
    const linksOf = documentLinks(data, await typeSchemas(em, scope));
    // An archive made before versions kept their links: each version's are computed as its publish did.
    const versions = data.contentVersions.map((v) => ({ ...v, links: v.links ?? linksOf(v.contentId, v.content) }));
    summary.contentVersions = summarize(
      await syncRows(em, ContentVersion, versions, { scope, immutable: true, label: 'content version' }),
    );
    // The working links of every entry the import wrote (the published ones follow at commit, from the versions).
    for (const record of [...entries.inserted, ...entries.updated.map((u) => u.record)]) {
      const links = record.status === 'deleted' ? [] : linksOf(record.id, record);
      await writeWorkingLinks(em, scope, record.id, links);
    }
    recordImportEvents(em, 'content', entries, scope, actorId);
    summary.content = summarize(entries);
    for (const [kind, entity, resourceType] of [
      ['tags', Tag, 'tags'],
      ['folders', Folder, 'folders'],
      ['savedSearches', SavedSearch, 'saved-searches'],
    ] as const) {
      const result = await syncRows(em, entity as typeof Tag, data[kind], { scope, label: kind });
      recordImportEvents(em, resourceType, result, scope, actorId);
      summary[kind] = summarize(result);
    }
    // Decision: an imported webhook gets a new secret and starts inactive; set its secret (PUT) and activate it.
    // Its `active` flag is then the target's own: re-importing never switches it back.
    const webhooks = await syncRows(em, Webhook, data.webhooks, {
      scope,
      label: 'webhook',
      omit: ['secretCiphertext'],
      keep: ['active'],
      onInsert: () => ({
        active: false,
        secretCiphertext: this.box.seal(`whsec_${randomBytes(24).toString('base64url')}`),
      }),
    });
    summary.webhooks = summarize(webhooks);
    return { summary, files: [] };
  }
}

/**
 * The schema of every type version the project holds once the archive's are written (`typeId:version`), so that an
 * entry of a type version the archive left out still gets the links that version's schema gives it.
 */
async function typeSchemas(em: EntityManager, scope: TransferScope) {
  const rows = await sql<{ content_type_id: string; version: number; schema: Record<string, unknown> | null }>(
    em,
    `select "content_type_id", "version", "content"->'schema' as "schema" from "content_type_version"
      where "organization_id" = ? and "project_id" = ?`,
    [scope.organizationId, scope.projectId],
  );
  return new Map(rows.map((r) => [`${r.content_type_id}:${r.version}`, r.schema ?? undefined]));
}

/**
 * The references of an archived entry's document (`snapshot`: the entry, or a version's frozen copy of it), under the
 * type version it follows. Targets are not checked: an archive is taken as it was exported.
 */
function documentLinks(data: TransferData, schemas: Map<string, Record<string, unknown> | undefined>) {
  const entries = new Map(data.content.map((e) => [e.id, e]));
  return (entryId: unknown, snapshot: unknown) => {
    const entry = entries.get(String(entryId)) as TransferRecord | undefined;
    const frozen = snapshot as { typeVersion?: unknown; content?: unknown } | null;
    const schema = entry && frozen ? schemas.get(`${String(entry.typeId)}:${String(frozen.typeVersion)}`) : undefined;
    const document = frozen?.content;
    if (!schema || typeof document !== 'object' || document === null || Array.isArray(document)) return [];
    return collectLinks(schema, document as Record<string, unknown>);
  };
}
