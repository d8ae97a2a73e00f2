// An immutable published version of a content type: the schema and rules content of that version follows.
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, Int, ObjectType } from 'type-graphql';

/** The members of a content type that a version freezes. */
export interface ContentTypeSnapshot {
  name: string;
  description?: string | null;
  schema: Record<string, unknown>;
  layoutComponentId?: string | null;
  componentIdsAllowList: unknown[];
  templateContentIds: string[];
  permissions: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

@ObjectType({ description: 'A published, immutable version of a content type.' })
@Entity({ tableName: 'content_type_version' })
@Unique({ properties: ['contentTypeId', 'version'] })
export class ContentTypeVersion {
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Property({ length: 64 })
  contentTypeId!: string;

  @Property({ length: 64 })
  organizationId!: string;

  @Property({ length: 64 })
  projectId!: string;

  @Field(() => Int, { description: 'Version number, consecutive from 1.' })
  @Property()
  version!: number;

  @Field(() => JSONObjectScalar, { description: 'The type as published: name, description, schema, layout, allow list, templates, permissions, metadata.' })
  @Property({ type: 'json' })
  content!: ContentTypeSnapshot;

  @Field(() => String, { description: 'Package version pinned at publication (D7).' })
  @Property({ length: 32 })
  packageVersion!: string;

  @Property({ length: 64 })
  createdById!: string;

  @Field(() => Date, { description: 'When the version was published.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();
}
