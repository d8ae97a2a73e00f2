// An administrator account: signs in with email and password, acts through its role.
import { Entity, Index, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A person (or automation user) who administers an organization.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'user' })
@Index({ properties: ['organizationId', 'createdAt'] })
export class User {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field(() => ID, { description: 'The organization the user belongs to.' })
  @Property({ length: 64 })
  organizationId!: string;

  @Field({ description: 'Sign-in email address, unique across the service.' })
  @Property()
  @Unique()
  email!: string;

  @Field({ description: 'Display name.' })
  @Property()
  name!: string;

  @Field(() => ID, { description: 'The role that grants this user its permissions.' })
  @Property({ length: 64 })
  roleId!: string;

  /** scrypt hash; never selected into a response. */
  @Property({ hidden: true, lazy: true })
  passwordHash!: string;

  /** Tokens issued before this instant are refused (password change, removal). */
  @Property({ type: 'timestamptz' })
  tokensValidAfter: Date & Opt = new Date(0);

  @Field(() => Date, { description: 'When the user was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the user last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
