// An asset: a file stored by the service and delivered from the CDN path.
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, Index, Property, type Opt } from '@mikro-orm/core';
import { ProjectScopedEntity } from '@cp/db';
import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({
  description: 'A file delivered from `{cdn_url}/{organizationId}/{projectId}/assets/{assetId}/{filename}`.',
})
@Directive('@key(fields: "id")')
@Entity({ tableName: 'asset' })
@Index({ properties: ['projectId', 'createdAt'] })
export class Asset extends ProjectScopedEntity {
  @Field({ description: 'File name (sanitized).' })
  @Property()
  name!: string;

  @Field({ description: 'Media type, sniffed from the bytes.' })
  @Property({ length: 255 })
  type!: string;

  @Field(() => Int, { description: 'Size in bytes.' })
  @Property()
  size!: number;

  @Field({ description: 'SHA-256 of the bytes, hex.' })
  @Property({ length: 64 })
  checksum!: string;

  @Field(() => String, { description: '`active` or `deleted`.' })
  @Property({ length: 16 })
  status: string & Opt = 'active';

  @Field(() => [String], { description: 'Tag names.' })
  @Property({ type: 'json' })
  tags: string[] & Opt = [];

  @Field(() => ID, { nullable: true, description: 'Folder placement; null is unfiled.' })
  @Property({ length: 64, nullable: true })
  folderId?: string | null;

  @Field(() => JSONObjectScalar, { description: 'Free-form metadata.' })
  @Property({ type: 'json' })
  metadata: Record<string, unknown> & Opt = {};

  @Property({ length: 64 })
  createdById!: string;
}
