// A role: a named set of permission flags per resource (the spec's Role table).
import { RevisionedEntity } from '@cp/db';
import type { Permissions } from '@cp/graphql';
import { JSONObjectScalar } from '@cp/graphql';
import { Entity, Index, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Directive, Field, ID, ObjectType } from 'type-graphql';

/** The bootstrap role: every flag; it always keeps at least one user so the organization stays administrable. */
export const OWNER_ROLE = 'Owner';

@ObjectType({ description: 'A named set of permissions that users of the organization are given.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'role' })
@Unique({ properties: ['organizationId', 'name'] })
@Index({ properties: ['organizationId', 'createdAt'] })
export class Role extends RevisionedEntity {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field(() => ID, { description: 'The organization the role belongs to.' })
  @Property({ length: 64 })
  organizationId!: string;

  @Field({ description: 'Name, unique in the organization (e.g. `Owner`).' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'What the role is for.' })
  @Property({ nullable: true, type: 'text' })
  description?: string | null;

  @Field(() => JSONObjectScalar, {
    description: 'Resource name → flags, e.g. `{"content": {"read": true, "publish": false}}`.',
  })
  @Property({ type: 'json' })
  permissions!: Permissions;

  @Field(() => Date, { description: 'When the role was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the role last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
