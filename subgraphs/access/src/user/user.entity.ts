// An administrator account: signs in with email and password, acts through its role.
import { RevisionedEntity } from '@cp/db';
import { Entity, Index, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Directive, Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A person (or automation user) who administers an organization.' })
@Directive('@key(fields: "id")')
@Entity({ tableName: 'user' })
@Index({ properties: ['organizationId', 'createdAt'] })
export class User extends RevisionedEntity {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  // Staff-only fields are nullable: API keys (public credentials) read them as null (user.resolver.ts).
  @Field(() => ID, { nullable: true, description: 'The organization the user belongs to; null for API keys.' })
  @Property({ length: 64 })
  organizationId!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Sign-in email address, unique across the service; null for API keys.',
  })
  @Property()
  @Unique()
  email!: string;

  @Field(() => String, { nullable: true, description: 'Display name; null for API keys.' })
  @Property()
  name!: string;

  @Field(() => ID, {
    nullable: true,
    description: 'The role that grants this user its permissions; null for API keys.',
  })
  @Property({ length: 64 })
  roleId!: string;

  /** scrypt hash; never selected into a response. */
  @Property({ hidden: true, lazy: true })
  passwordHash!: string;

  /** Tokens issued before this instant are refused (password change, removal). */
  @Property({ type: 'timestamptz' })
  tokensValidAfter: Date & Opt = new Date(0);

  @Field(() => Date, { nullable: true, description: 'When the user was created; null for API keys.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { nullable: true, description: 'When the user last changed; null for API keys.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
