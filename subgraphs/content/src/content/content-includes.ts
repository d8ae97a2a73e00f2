// `include`: the entries and assets an answer's entries reference, to a few hops, sent beside the answer.
import { BadRequestError } from '@cp/errors';
import type { LocaleRequest, ProjectScope, Visibility } from '@cp/graphql';
import { Field, ObjectType } from 'type-graphql';
import { AssetReference } from './asset-reference';
import { Content } from './content.entity';

/** The deepest `include`: each hop costs a few statements, and a site rarely renders more than three levels. */
export const MAX_INCLUDE = 3;

@ObjectType({
  description:
    'The entries and assets reachable through references from an answer’s entries (up to `include` hops), each once and none already in the answer.',
})
export class ContentIncludes {
  @Field(() => [Content], {
    description: 'Referenced entries, as the caller sees them (API keys: published versions).',
  })
  content!: Content[];

  @Field(() => [AssetReference], { description: 'Referenced assets that are not deleted.' })
  assets!: AssetReference[];
}

/** What a root field asked for, kept on its answer until its `includes` field is resolved. */
export interface IncludeRequest {
  scope: ProjectScope;
  depth: number;
  visibility: Visibility;
  /** The locale the answer was read in: its includes are read in it too. */
  locale: LocaleRequest;
}

/** Where a root field's answer (a list page or one entry) keeps its `include` request. */
export const INCLUDE = Symbol('include');

export type WithInclude<T> = T & { [INCLUDE]?: IncludeRequest };

/** `include` as given (absent: 0); anything but an integer from 0 to 3 is 400 naming the parameter. */
export function parseInclude(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_INCLUDE)
    throw new BadRequestError(`include must be an integer from 0 to ${MAX_INCLUDE}.`, {
      parameter: 'include',
      value,
    });
  return value;
}

/** The answer with its `include` request attached (nothing attached for 0: `includes` then answers null). */
export function withInclude<T extends object>(answer: T, request: IncludeRequest): WithInclude<T> {
  if (request.depth > 0) (answer as WithInclude<T>)[INCLUDE] = request;
  return answer;
}
