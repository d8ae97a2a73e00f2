// A content entry: a document of a content type, with its lifecycle, versions and compiled module.
import { EntityStatus, JSONObjectScalar } from '@cp/graphql';
import { Entity, Enum, Property, type Opt } from '@mikro-orm/core';
import { RevisionedProjectEntity, VersionRecord } from '@cp/db';
import type { Link } from './content-links';
import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An entry of a content type.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'content' })
export class Content extends RevisionedProjectEntity {
  @Field(() => ID, { description: 'The content type.' })
  @Property({ length: 64 })
  typeId!: string;

  @Field(() => Int, { description: 'The content type version the entry follows.' })
  @Property()
  typeVersion!: number;

  @Field(() => String, { description: 'Package version derived from the type version.' })
  @Property({ length: 32 })
  packageVersion!: string;

  @Field(() => Int, { nullable: true, description: 'The published version; null on `draft` and `modified`.' })
  @Property({ nullable: true })
  version?: number | null;

  @Field(() => Int, { nullable: true, description: 'The last version ever published.' })
  @Property({ nullable: true })
  lastPublishedVersion?: number | null;

  @Field(() => String, { description: 'Name.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Structured markdown, used by search.' })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => EntityStatus, { description: 'Lifecycle status.' })
  @Enum({ items: () => EntityStatus })
  status: EntityStatus & Opt = EntityStatus.draft;

  @Field(() => Boolean, { description: 'Whether the entry is a template.' })
  @Property()
  isTemplate: boolean & Opt = false;

  @Field(() => JSONObjectScalar, { description: 'The document; `components` holds the component tree.' })
  @Property({ type: 'json' })
  content!: Record<string, unknown>;

  @Field(() => String, { description: 'ES module bundling the data with its layout and components (see the README).' })
  @Property({ type: 'text' })
  compiled!: string;

  @Field(() => [String], { description: 'Tag names.' })
  @Property({ type: 'json' })
  tags: string[] & Opt = [];

  @Field(() => ID, { nullable: true, description: 'Folder placement; null is unfiled.' })
  @Property({ length: 64, nullable: true })
  folderId?: string | null;

  @Field(() => JSONObjectScalar, { description: '`author`, `locale`, `publishedAt`, `publishedBy`, …' })
  @Property({ type: 'json' })
  metadata: Record<string, unknown> & Opt = {};

  @Property({ length: 64 })
  createdById!: string;
}

/** The members of an entry that a version freezes. */
export interface ContentSnapshot {
  name: string;
  description?: string | null;
  content: Record<string, unknown>;
  tags: string[];
  folderId?: string | null;
  metadata: Record<string, unknown>;
  typeVersion: number;
  packageVersion: string;
  isTemplate: boolean;
}

@ObjectType({ description: 'A published, immutable version of a content entry.' })
@Entity({ tableName: 'content_version' })
export class ContentVersion extends VersionRecord {
  @Property({ length: 64 })
  contentId!: string;

  /** The entry as published (name, content, tags, typeVersion, …); GraphQL shows its members side by side (content.resolver.ts). */
  @Property({ type: 'json' })
  content!: ContentSnapshot;

  @Property({ type: 'text' })
  compiled!: string;

  /** The references of this version's document, in document order: the published links while it is the one shown. */
  @Property({ type: 'json' })
  links: Link[] & Opt = [];
}
