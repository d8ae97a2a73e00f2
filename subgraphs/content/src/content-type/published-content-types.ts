// What API keys see of content types: the last published version of each, never a draft or a working copy;
// preview keys see the working copies instead.
import { publishedReader } from '@cp/db';
import { EntityStatus } from '@cp/graphql';
import { ContentTypeVersion } from './content-type-version.entity';
import { ContentType } from './content-type.entity';

const contentTypes = publishedReader({
  name: 'ContentType',
  entity: ContentType,
  versions: ContentTypeVersion,
  key: 'contentTypeId',
  // An unpublished type keeps its versions but is gone for keys.
  hidden: [EntityStatus.deleted, EntityStatus.unpublished],
  fields: (version) => ({ ...version.content, packageVersion: version.packageVersion }) as Partial<ContentType>,
});

export const listVisibleContentTypes = contentTypes.list;
export const getVisibleContentType = contentTypes.get;
