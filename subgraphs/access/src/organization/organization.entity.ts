// An organization: the tenant boundary; everything else lives inside one.
import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A tenant. Users, roles and projects belong to exactly one organization.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'organization' })
export class Organization {
  @Field(() => ID, { description: 'Identifier; the organization created at first start-up has the id `default`.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field({ description: 'Display name.' })
  @Property()
  name!: string;

  @Field(() => Date, { description: 'When the organization was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the organization last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
