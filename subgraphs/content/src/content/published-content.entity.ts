// The published projection of content (table `published_content`): what API keys filter, sort and search on.
import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One row per entry with a live published version, written only by the database (the `content_published_refresh`
 * trigger, in the transaction that publishes, unpublishes, deletes, restores, discards or rolls back). Its members
 * carry `Content`'s names, so the list and search filters apply to it unchanged, those on the fields inside the document
 * included; `compiled` stays in the version row, joined for the page only.
 */
@Entity({ tableName: 'published_content', readonly: true })
export class PublishedContent {
  @PrimaryKey({ length: 64 })
  id!: string;

  @Property({ length: 64 })
  organizationId!: string;

  @Property({ length: 64 })
  projectId!: string;

  @Property({ length: 64 })
  typeId!: string;

  @Property()
  typeVersion!: number;

  @Property({ length: 32 })
  packageVersion!: string;

  @Property()
  version!: number;

  @Property()
  name!: string;

  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Property()
  isTemplate!: boolean;

  @Property({ type: 'json' })
  tags!: string[];

  @Property({ length: 64, nullable: true })
  folderId?: string | null;

  @Property({ type: 'json' })
  metadata!: Record<string, unknown>;

  /** The published version's document. */
  @Property({ type: 'json' })
  content!: Record<string, unknown>;

  @Property({ length: 64 })
  createdById!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  /** When the visible version was published. */
  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
