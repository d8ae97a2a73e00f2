// A project API key (spec "API Key"): read-only client access to one project's published (or, for a preview key, working) state.
import { RevisionedEntity } from '@cp/db';
import { Entity, Enum, Index, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum ApiKeyStatus {
  active = 'active',
  revoked = 'revoked',
}

registerEnumType(ApiKeyStatus, {
  name: 'ApiKeyStatus',
  description: 'Whether the key still authenticates.',
  valuesConfig: {
    active: { description: 'The key works.' },
    revoked: { description: 'The key is refused (401), for good.' },
  },
});

/** Values of the `ApiKeyScope` enum: the principal's `scope`. */
export enum ApiKeyScope {
  published = 'published',
  preview = 'preview',
}

registerEnumType(ApiKeyScope, {
  name: 'ApiKeyScope',
  description: 'What a key reads, fixed when it is created.',
  valuesConfig: {
    published: { description: 'The published state only; answers may be cached and shared (the default).' },
    preview: { description: 'The working state (drafts, working copies), read-only; answers are `private, no-store`.' },
  },
});

@ObjectType({ description: 'A key for the client API (`x-api-key`); its value is shown only when it is created.' })
@Entity({ tableName: 'api_key' })
@Index({ properties: ['organizationId', 'projectId', 'createdAt'] })
export class ApiKey extends RevisionedEntity {
  @Field(() => ID, { description: 'Identifier.' })
  @PrimaryKey({ length: 64 })
  id: string = randomUUID();

  @Field(() => ID, { description: 'The organization of the project.' })
  @Property({ length: 64 })
  organizationId!: string;

  @Field(() => ID, { description: 'The one project the key is scoped to.' })
  @Property({ length: 64 })
  projectId!: string;

  @Field({ description: 'Descriptive name.' })
  @Property()
  name!: string;

  @Field(() => String, { nullable: true, description: 'What the key is used for.' })
  @Property({ nullable: true, type: 'text' })
  description?: string | null;

  @Field(() => ApiKeyScope, { description: '`published` or `preview`; fixed at creation.' })
  @Enum({ items: () => ApiKeyScope, length: 16 })
  scope: ApiKeyScope & Opt = ApiKeyScope.published;

  /** SHA-256 (hex) of the key; the key itself is never stored. */
  @Property({ length: 64, hidden: true, unique: true })
  keyHash!: string;

  @Field(() => ApiKeyStatus, { description: '`active` or `revoked`; a revoked key is refused with UNAUTHORIZED.' })
  @Enum({ items: () => ApiKeyStatus, length: 16 })
  status: ApiKeyStatus & Opt = ApiKeyStatus.active;

  @Field(() => Date, {
    nullable: true,
    description: 'When the key last authenticated a request (updated at most once a minute).',
  })
  @Property({ type: 'timestamptz', nullable: true })
  lastUsed?: Date | null;

  @Field(() => ID, { name: 'createdBy', description: 'Id of the user who created the key.' })
  @Property({ length: 64 })
  createdById!: string;

  @Field(() => Date, { description: 'When the key was created.' })
  @Property({ type: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the key last changed.' })
  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}

@ObjectType({ description: 'A key just created: the only response that carries its value.' })
export class CreatedApiKey extends ApiKey {
  @Field({ description: 'The key value (`cpk_live_…`). Store it now: it cannot be retrieved later.' })
  key!: string;
}
