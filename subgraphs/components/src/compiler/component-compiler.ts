// The one entry point: source → compiled module, `title`/`description` from the sandboxed `metadata()`, props schema.
import { BadRequestError } from '@cp/errors';
import { compileSource } from './compile';
import { derivePropsSchema } from './props-schema';
import { runMetadata } from './sandbox';

export interface CompiledComponent {
  compiled: string;
  title: string;
  description: string;
  schema: Record<string, unknown>;
}

export async function compileComponent(source: string): Promise<CompiledComponent> {
  const { module, script } = await compileSource(source);
  const metadata = await runMetadata(script);
  if (typeof metadata.title !== 'string' || !metadata.title.trim() || typeof metadata.description !== 'string') {
    throw new BadRequestError('metadata() must return a title and a description.', {
      content: 'metadata() must return { title: string (not empty), description: string }.',
    });
  }
  return { compiled: module, title: metadata.title, description: metadata.description, schema: derivePropsSchema(source) };
}
