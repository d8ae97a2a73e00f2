// Inputs of content operations (spec "Create content", search, partial update).
import { CursorArgs, EntityStatus, JSONObjectScalar, JSONScalar } from '@cp/graphql';
import { ArgsType, Field, ID, InputType, Int } from 'type-graphql';

/** What `include` does on a page (a list or a search). */
const PAGE_INCLUDE_DESCRIPTION =
  'Also answer `includes`: the entries and assets the page’s entries reference, to this many hops (0–3, default 0).';

/** What `select` does, for every field that takes it. */
export const SELECT_DESCRIPTION =
  'The entry fields and `content.<path>`s to answer (`id` always). In GraphQL your selection set picks the entry fields; here `select` prunes `content` to the named paths (a nested path keeps its nesting; `content` keeps the whole document; with no path named, `content` is `{}`). With one content type selected, each path must be a property its schema declares. REST: comma-separated. `includes` are not pruned.';

/** What `locale` does on reads. */
export const LOCALE_DESCRIPTION =
  'The locale to answer in (a code of the project’s `locales`; default: its default locale). A localized property answers its value in that locale, else in its fallback chain, else it is left out; filters and sort read it the same way. `*` answers every locale’s values as maps `{"<code>": value}`. The locale cascades to `includes` and `references`.';

/** What `locale` does on writes. */
export const WRITE_LOCALE_DESCRIPTION =
  'The locale `content`’s localized properties are written in (default: the project’s default locale); the other locales’ values are kept, and a null or absent value is removed (reads fall back). `*`: they hold maps `{"<code>": value}` that replace every locale’s values.';

@InputType({ description: 'A new content entry.' })
export class CreateContentInput {
  @Field(() => ID, { description: 'The content type; it must have a published version.' })
  typeId!: string;

  @Field({ description: 'Name.' })
  name!: string;

  @Field({ nullable: true, description: 'Structured markdown.' })
  description?: string;

  @Field({ nullable: true, description: 'Default false.' })
  isTemplate?: boolean;

  @Field(() => JSONObjectScalar, {
    description: 'The document, valid against the type’s schema; `components` holds the component tree.',
  })
  content!: Record<string, unknown>;

  @Field(() => [String], { nullable: true, description: 'Tag names.' })
  tags?: string[];

  @Field(() => ID, { nullable: true, description: 'Folder.' })
  folderId?: string;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: 'Metadata such as `locale`; `author` is set by the service.',
  })
  metadata?: Record<string, unknown>;
}

@InputType({ description: 'Changes to an entry: only the members given change; a published entry becomes `modified`.' })
export class UpdateContentInput {
  @Field({ nullable: true, description: 'Name.' })
  name?: string;

  @Field({ nullable: true, description: 'Structured markdown.' })
  description?: string;

  @Field({ nullable: true, description: 'Whether the entry is a template.' })
  isTemplate?: boolean;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'The document (replaces it).' })
  content?: Record<string, unknown>;

  @Field(() => [String], { nullable: true, description: 'Tag names (replaces the list).' })
  tags?: string[];

  @Field(() => ID, { nullable: true, description: 'Folder; null unfiles the entry.' })
  folderId?: string | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Metadata (replaces it; `author` is kept).' })
  metadata?: Record<string, unknown>;
}

@InputType({ description: 'The content type version to move an entry to.' })
export class MigrateInput {
  @Field(() => Int, { description: 'A published version of the entry’s type, not older than the current one.' })
  targetTypeVersion!: number;
}

@ArgsType()
export class ContentListArgs extends CursorArgs {
  @Field(() => ID, {
    nullable: true,
    description: 'Only entries of this content type (aliases `type`, `contentType`).',
  })
  typeId?: string;

  @Field(() => ID, { nullable: true, description: 'Alias of `typeId`.' })
  type?: string;

  @Field(() => ID, { nullable: true, description: 'Alias of `typeId`.' })
  contentType?: string;

  @Field({ nullable: true, description: 'Comma-separated tag names; entries carrying all of them.' })
  tags?: string;

  @Field(() => EntityStatus, {
    nullable: true,
    description: 'Only entries in this status (API keys: only `published`, a no-op; any other is 400).',
  })
  status?: EntityStatus;

  @Field({
    nullable: true,
    description: 'Full-text terms over name, description and text in the document (prefix matching).',
  })
  search?: string;

  @Field({
    nullable: true,
    description: 'Natural-language query; ranked by full-text relevance (docs/api/content.md).',
  })
  query?: string;

  @Field(() => Boolean, { nullable: true, description: 'Only templates (`true`) or only non-templates (`false`).' })
  isTemplate?: boolean;

  @Field({ nullable: true, description: 'Only entries in this folder; `null` selects unfiled entries.' })
  folderId?: string;

  @Field({
    nullable: true,
    description:
      '`updatedAt:desc` (default) or `updatedAt:asc`; with one `typeId` selected, `content.<path>:asc|desc` sorts by a property of the document.',
  })
  sort?: string;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description:
      'Field → operators, as in `searchContent`; with one `typeId` selected, `content.<path>` names a property of the document, e.g. `{"content.slug": {"eq": "launch"}}`. REST: `content.slug=launch`, `content.price[gte]=10`.',
  })
  filter?: Record<string, unknown>;

  @Field(() => Int, { nullable: true, description: PAGE_INCLUDE_DESCRIPTION })
  include?: number;

  @Field(() => [String], {
    nullable: true,
    description: SELECT_DESCRIPTION,
  })
  select?: string[];

  @Field({ nullable: true, description: LOCALE_DESCRIPTION })
  locale?: string;
}

@InputType({ description: 'Advanced search: a filter map of field → operators, a sort, and offset paging.' })
export class SearchContentInput {
  @Field(() => JSONObjectScalar, {
    nullable: true,
    description:
      'e.g. `{"status": {"eq": "published"}, "tags": {"all": ["a"]}}`; with `typeId: {eq}` selecting one type, `content.<path>` fields filter on the document, e.g. `{"content.price": {"gte": 10}}`.',
  })
  filter?: Record<string, unknown>;

  @Field(() => JSONScalar, {
    nullable: true,
    description:
      '`[{field: "updatedAt", order: "asc"|"desc"}]` (default updatedAt desc); with `typeId: {eq}` in the filter, `field` may be `content.<path>`.',
  })
  sort?: unknown;

  @Field(() => Int, { nullable: true, description: 'Page, 1-based.' })
  page?: number;

  @Field(() => Int, { nullable: true, description: 'Items per page, 1 to 100.' })
  limit?: number;

  @Field({ nullable: true, description: 'Full-text terms.' })
  search?: string;

  @Field({ nullable: true, description: 'Natural-language query (ranked full-text).' })
  query?: string;

  @Field(() => Int, { nullable: true, description: PAGE_INCLUDE_DESCRIPTION })
  include?: number;

  @Field(() => [String], {
    nullable: true,
    description: SELECT_DESCRIPTION,
  })
  select?: string[];
}
