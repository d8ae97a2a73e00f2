// TEMPORARY seam until the sandboxed compiler lands (feat/components): esbuild only, no metadata() evaluation.
import { BadRequestError } from '@cp/errors';
import { transform } from 'esbuild';

export async function compileComponent(source: string) {
  try {
    const { code } = await transform(source, { loader: 'ts', format: 'esm' });
    const title = /title:\s*'([^']*)'/.exec(source)?.[1] ?? '';
    const description = /description:\s*'([^']*)'/.exec(source)?.[1] ?? '';
    return { compiled: code, title, description, schema: { type: 'object', properties: {} } as Record<string, unknown> };
  } catch (e) {
    throw new BadRequestError('Component source does not compile.', { content: (e as Error).message });
  }
}
