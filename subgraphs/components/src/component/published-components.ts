// What API keys see of components: the last published version of each, never a draft or a working copy;
// preview keys see the working copies instead.
import { publishedReader } from '@cp/db';
import { EntityStatus } from '@cp/graphql';
import { ComponentVersion } from './component-version.entity';
import { Component } from './component.entity';

const components = publishedReader({
  name: 'Component',
  entity: Component,
  versions: ComponentVersion,
  key: 'componentId',
  hidden: [EntityStatus.deleted],
  fields: ({ name, type, title, description, content, compiled, schema, metadata, collectionId }, working) =>
    ({
      name,
      type,
      title,
      description,
      content,
      compiled,
      schema,
      ...publishedPlacement({ metadata, collectionId }, working),
    }) as Partial<Component>,
});

/**
 * Metadata and collection as published. A version published before versions kept them has neither: the working row's
 * are its own only while the component is unchanged since (status `published`); otherwise none are shown rather than
 * a working copy's (an edit since publication may have changed them).
 */
function publishedPlacement(
  version: Pick<ComponentVersion, 'metadata' | 'collectionId'>,
  working: Component,
): Pick<Component, 'metadata' | 'collectionId'> {
  if (version.metadata) return { metadata: version.metadata, collectionId: version.collectionId ?? null };
  if (working.status === EntityStatus.published)
    return { metadata: working.metadata, collectionId: working.collectionId ?? null };
  return { metadata: {}, collectionId: null };
}

export const listVisibleComponents = components.list;
export const getVisibleComponent = components.get;
