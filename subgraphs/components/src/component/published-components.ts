// What API keys see of components: the last published version of each, never a draft or a working copy (D9);
// preview keys see the working copies instead (D18).
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
  fields: ({ name, type, title, description, content, compiled, schema }) =>
    ({ name, type, title, description, content, compiled, schema }) as Partial<Component>,
});

export const listVisibleComponents = components.list;
export const getVisibleComponent = components.get;
