// The one entry point: source → compiled module, `title`/`description` from the sandboxed `metadata()`, props schema.
import { BadRequestError } from '@cp/errors';
import { compileSource } from './compile';
import { propsSchemaOf } from './props-schema-runner';
import { runMetadata } from './sandbox';

const MAX_TITLE = 255;
/**
 * A description is prose: without a bound, `metadata()` could return megabytes that every component list, package
 * and client read then carries (and past the response limit, refuses) for good, since versions never change.
 */
const MAX_DESCRIPTION = 10_000;

export interface CompiledComponent {
  compiled: string;
  title: string;
  description: string;
  schema: Record<string, unknown>;
}

export async function compileComponent(source: string): Promise<CompiledComponent> {
  const { module, script } = await compileSource(source);
  const [metadata, schema] = await Promise.allSettled([runMetadata(script), propsSchemaOf(source)]);
  // Both failing reports the metadata error, whichever finished first.
  if (metadata.status === 'rejected') throw metadata.reason;
  if (schema.status === 'rejected') throw schema.reason;
  return checked(module, metadata.value, schema.value);
}

function checked(
  module: string,
  metadata: Record<string, unknown>,
  schema: Record<string, unknown>,
): CompiledComponent {
  if (typeof metadata.title !== 'string' || !metadata.title.trim() || typeof metadata.description !== 'string') {
    throw new BadRequestError('metadata() must return a title and a description.', {
      content: 'metadata() must return { title: string (not empty), description: string }.',
    });
  }
  // `title` is a varchar(255) column: an overlong one is the component's error (400), not the database's (500).
  if (metadata.title.length > MAX_TITLE) {
    throw new BadRequestError('metadata() returned a title that is too long.', {
      content: `title must be at most ${MAX_TITLE} characters.`,
    });
  }
  if (metadata.description.length > MAX_DESCRIPTION) {
    throw new BadRequestError('metadata() returned a description that is too long.', {
      content: `description must be at most ${MAX_DESCRIPTION} characters.`,
    });
  }
  return { compiled: module, title: metadata.title, description: metadata.description, schema };
}
