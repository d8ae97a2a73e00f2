// TypeScript component source → the ES module clients get (`compiled`) and the script the sandbox evaluates.
import { BadRequestError } from '@cp/errors';
import { formatMessages, transform, type Message } from 'esbuild';

export interface CompiledSource {
  /** ES module: `export default` render function and `export function metadata`. */
  module: string;
  /** The same code as a script assigning its exports to `globalThis.__component`, for the sandbox. */
  script: string;
}

/** Components are self-contained: an `import` would reach outside the sandbox and the bundle. */
const IMPORT = /(^|\n)\s*import\s[^;]*?from\s*['"]|(^|\n)\s*import\s*['"]|\bimport\s*\(|\brequire\s*\(/;

export async function compileSource(source: string): Promise<CompiledSource> {
  if (IMPORT.test(source)) {
    throw new BadRequestError('Component source does not compile.', {
      content: 'Components cannot import modules; inline what you need.',
    });
  }
  try {
    const [esm, iife] = await Promise.all([
      transform(source, { loader: 'ts', format: 'esm', target: 'es2020', sourcefile: 'component.ts' }),
      transform(source, {
        loader: 'ts',
        format: 'iife',
        globalName: '__component',
        target: 'es2020',
        sourcefile: 'component.ts',
      }),
    ]);
    return { module: esm.code, script: iife.code };
  } catch (e) {
    const errors = (e as { errors?: Message[] }).errors;
    const content = errors
      ? (await formatMessages(errors, { kind: 'error', color: false })).join('\n').trim()
      : (e as Error).message;
    throw new BadRequestError('Component source does not compile.', { content });
  }
}
