// An immutable published version of a content type: the schema and rules content of that version follows.
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, Property, Unique } from '@mikro-orm/core';
import { VersionRecord } from '@cp/db';
import { Field, ObjectType } from 'type-graphql';

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
export class ContentTypeVersion extends VersionRecord {
  @Property({ length: 64 })
  contentTypeId!: string;

  @Field(() => JSONObjectScalar, {
    description:
      'The type as published: name, description, schema, layout, allow list, templates, permissions, metadata.',
  })
  @Property({ type: 'json' })
  content!: ContentTypeSnapshot;

  @Field(() => String, { description: 'Package version pinned at publication.' })
  @Property({ length: 32 })
  packageVersion!: string;
}
