// TypeScript component source → the ES module clients get (`compiled`) and the script the sandbox evaluates.
import { BadRequestError } from '@cp/errors';
import type { Message, Plugin } from 'esbuild';

export interface CompiledSource {
  /** ES module: `export default` render function and `export function metadata`. */
  module: string;
  /** The same code as a script assigning its exports to `globalThis.__component`, for the sandbox. */
  script: string;
}

/**
 * Components are self-contained: an import would reach outside the sandbox, and the package bundle (packages/bundle)
 * could not resolve it. esbuild itself finds every module the source asks for (`import … from`, `import()` and
 * `require()` with a literal, however spelled or commented), exactly as the bundle will: every one is refused.
 */
const noImports: Plugin = {
  name: 'no-imports',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, ({ path }) => ({
      errors: [{ text: `Components cannot import modules ("${path}"); inline what you need.` }],
    }));
  },
};

export async function compileSource(source: string): Promise<CompiledSource> {
  // Loaded on the first compilation rather than at start: an idle process does not carry esbuild's JavaScript.
  const { build, formatMessages, transform } = await import('esbuild');
  try {
    await build({
      stdin: { contents: source, loader: 'ts', sourcefile: 'component.ts' },
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2020',
      logLevel: 'silent',
      // An import nothing uses would be dropped unseen (TypeScript elides it); every one is refused all the same.
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
      plugins: [noImports],
    });
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
