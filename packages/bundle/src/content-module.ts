// Builds a content entry's `compiled` ES module: its data bundled with the layout and components of its pinned package.
import type { Plugin } from 'esbuild';
import { createHash } from 'node:crypto';

export interface CompiledComponent {
  name: string;
  /** The component's compiled ES module (default export: `render(props, children) => string`). */
  compiled: string;
}

export interface ContentModuleInput {
  /** The entry's `content` document; `content.components` holds the component tree. */
  content: Record<string, unknown>;
  /** Identity of the entry: id, name, typeId, typeVersion, packageVersion, version… */
  meta: Record<string, unknown>;
  layout?: CompiledComponent | null;
  /** Every component the tree may use, by name (usually the pinned package's). */
  components: CompiledComponent[];
}

const NAMESPACE = 'cp-component';

/** Components arrive as compiled source text; this plugin serves them to esbuild as virtual modules. */
function virtualComponents(sources: Map<string, string>): Plugin {
  return {
    name: 'virtual-components',
    setup(b) {
      b.onResolve({ filter: /^component:/ }, (args) => ({
        path: args.path.slice('component:'.length),
        namespace: NAMESPACE,
      }));
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: sources.get(args.path) ?? '',
        loader: 'js',
      }));
    },
  };
}

/**
 * Exports of the module (documented in the README):
 * - `content`, `meta`: the entry's data;
 * - `components`: name → render function; `layout`: the layout's render function or null;
 * - `renderTree(nodes)`: renders `{type, props, children}` nodes, each component called as `render(props, childrenHtml)`;
 * - default export `render()`: the whole entry, the tree wrapped by the layout as `layout({content, meta, children})`.
 *
 * Only `content` and `meta` differ between the entries of a package version, and every edit and publish compiles: the
 * bundle of layout and components (the shell) is built by esbuild once and the data is spliced into it as JSON.
 */
export async function buildContentModule(input: ContentModuleInput): Promise<string> {
  const shell = await shellFor(input.layout ?? null, input.components);
  if (!shell) return bundleWhole(input);
  return shell.before + JSON.stringify(input.content) + shell.between + JSON.stringify(input.meta) + shell.after;
}

/** A bundled module cut where the data goes: `before` + content + `between` + meta + `after`. */
interface Shell {
  before: string;
  between: string;
  after: string;
}

const CONTENT = '"__cp_content_placeholder__"';
const META = '"__cp_meta_placeholder__"';
/** Shells by the hash of their layout and components; null when the placeholders can't be found exactly once. */
const shells = new Map<string, Promise<Shell | null>>();
const MAX_SHELLS = 256;

function shellFor(layout: CompiledComponent | null, components: CompiledComponent[]): Promise<Shell | null> {
  const key = createHash('sha256')
    .update(JSON.stringify([layout?.compiled ?? null, components.map((c) => [c.name, c.compiled])]))
    .digest('base64url');
  let shell = shells.get(key);
  if (!shell) {
    if (shells.size >= MAX_SHELLS) shells.clear();
    shell = bundle(layout, components, CONTENT, META).then(cut);
    // A failed build is not remembered: the next compile tries again (and reports its own error).
    shell.catch(() => shells.delete(key));
    shells.set(key, shell);
  }
  return shell;
}

/** A component's source could contain a placeholder too; then the shell is unusable and each entry is bundled whole. */
function cut(code: string): Shell | null {
  const at = code.indexOf(CONTENT);
  const metaAt = code.indexOf(META);
  if (at < 0 || metaAt < at || code.lastIndexOf(CONTENT) !== at || code.lastIndexOf(META) !== metaAt) return null;
  return {
    before: code.slice(0, at),
    between: code.slice(at + CONTENT.length, metaAt),
    after: code.slice(metaAt + META.length),
  };
}

/** The module with its data, all through esbuild: what a shell with the data spliced in must equal. */
export function bundleWhole(input: ContentModuleInput): Promise<string> {
  return bundle(input.layout ?? null, input.components, JSON.stringify(input.content), JSON.stringify(input.meta));
}

/** `content` and `meta` are JavaScript expressions (the data as JSON, or the shell's placeholders). */
async function bundle(
  layout: CompiledComponent | null,
  components: CompiledComponent[],
  content: string,
  meta: string,
): Promise<string> {
  const used = new Map<string, CompiledComponent>();
  for (const c of components) used.set(c.name, c);
  const sources = new Map<string, string>();
  const imports: string[] = [];
  const entries: string[] = [];
  [...used.values()].forEach((c, i) => {
    sources.set(`c${i}`, c.compiled);
    // A namespace import, not `import c from`: a module without a default export would fail the whole bundle (and every
    // entry of its project) at build time; here such a component renders nothing instead (the compiler refuses new ones).
    imports.push(`import * as c${i} from 'component:c${i}';`);
    entries.push(`${JSON.stringify(c.name)}: renderable(c${i}.default)`);
  });
  if (layout) {
    sources.set('layout', layout.compiled);
    imports.push(`import * as layoutModule from 'component:layout';`);
  }
  const entry = `${imports.join('\n')}
function renderable(fn) {
  return typeof fn === 'function' ? fn : () => '';
}
export const content = ${content};
export const meta = ${meta};
export const components = { ${entries.join(', ')} };
export const layout = ${layout ? "typeof layoutModule.default === 'function' ? layoutModule.default : null" : 'null'};
export function renderTree(nodes) {
  return (nodes || []).map((node) => {
    const render = components[node.type];
    if (typeof render !== 'function') throw new Error('Unknown component: ' + node.type);
    return render(node.props || {}, renderTree(node.children));
  }).join('');
}
export default function render() {
  const children = renderTree(content.components);
  return layout ? layout({ content, meta, children }) : children;
}
`;
  // Loaded on the first bundle rather than at start: an idle process does not carry esbuild's JavaScript.
  const { build } = await import('esbuild');
  const result = await build({
    stdin: { contents: entry, loader: 'js', resolveDir: '/' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    write: false,
    legalComments: 'none',
    plugins: [virtualComponents(sources)],
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
