// A file attached to a component (images, fonts…); the service manages uploading → processing → active | error.
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, Enum, Index, Property, type Opt } from '@mikro-orm/core';
import { ProjectScopedEntity } from '@cp/db';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum ComponentAssetStatus {
  uploading = 'uploading',
  processing = 'processing',
  active = 'active',
  deleted = 'deleted',
  error = 'error',
}

registerEnumType(ComponentAssetStatus, {
  name: 'ComponentAssetStatus',
  description: 'Only `active` and `deleted` can be requested; the others are managed by the service.',
  valuesConfig: {
    uploading: { description: 'Bytes are arriving.' },
    processing: { description: 'The type and checksum are being determined.' },
    active: { description: 'Available and delivered by the CDN.' },
    deleted: { description: 'Soft-deleted; not delivered.' },
    error: { description: 'The upload or processing failed; the bytes were removed.' },
  },
});

@ObjectType({ description: 'A file attached to a component.' })
@Entity({ tableName: 'component_asset' })
@Index({ properties: ['componentId', 'createdAt'] })
export class ComponentAsset extends ProjectScopedEntity {
  @Field(() => ID, { description: 'The component the file belongs to.' })
  @Property({ length: 64 })
  componentId!: string;

  @Field({ description: 'File name (sanitized).' })
  @Property()
  name!: string;

  @Field(() => String, {
    description: 'Media type, sniffed from the bytes (`application/octet-stream` until processed).',
  })
  @Property({ length: 255 })
  type: string & Opt = 'application/octet-stream';

  @Field(() => Int, { description: 'Size in bytes (0 until processed).' })
  @Property()
  size: number & Opt = 0;

  @Property({ length: 64, nullable: true })
  checksum?: string | null;

  @Field(() => ComponentAssetStatus, { description: 'Processing and availability status.' })
  @Enum({ items: () => ComponentAssetStatus })
  status: ComponentAssetStatus & Opt = ComponentAssetStatus.uploading;

  @Field(() => JSONObjectScalar, { description: 'Free-form metadata.' })
  @Property({ type: 'json' })
  metadata: Record<string, unknown> & Opt = {};

  @Field(() => [String], { description: 'Tag names.' })
  @Property({ type: 'json' })
  tags: string[] & Opt = [];

  @Property({ length: 64 })
  createdById!: string;
}
