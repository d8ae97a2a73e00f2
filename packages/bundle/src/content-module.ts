// Builds a content entry's `compiled` ES module (D6): its data bundled with the layout and components of its pinned package.
import { build, type Plugin } from 'esbuild';

export interface CompiledComponent {
  name: string;
  /** The component's compiled ES module (default export: `render(props, children) => string`). */
  compiled: string;
}

export interface ContentModuleInput {
  /** The entry's `content` document; `content.components` holds the component tree (D6). */
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
      b.onResolve({ filter: /^component:/ }, (args) => ({ path: args.path.slice('component:'.length), namespace: NAMESPACE }));
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({ contents: sources.get(args.path) ?? '', loader: 'js' }));
    },
  };
}

/**
 * Exports of the module (documented in the README):
 * - `content`, `meta`: the entry's data;
 * - `components`: name → render function; `layout`: the layout's render function or null;
 * - `renderTree(nodes)`: renders `{type, props, children}` nodes, each component called as `render(props, childrenHtml)`;
 * - default export `render()`: the whole entry, the tree wrapped by the layout as `layout({content, meta, children})`.
 */
export async function buildContentModule(input: ContentModuleInput): Promise<string> {
  const used = new Map<string, CompiledComponent>();
  for (const c of input.components) used.set(c.name, c);
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
  if (input.layout) {
    sources.set('layout', input.layout.compiled);
    imports.push(`import * as layoutModule from 'component:layout';`);
  }
  const entry = `${imports.join('\n')}
function renderable(fn) {
  return typeof fn === 'function' ? fn : () => '';
}
export const content = ${JSON.stringify(input.content)};
export const meta = ${JSON.stringify(input.meta)};
export const components = { ${entries.join(', ')} };
export const layout = ${input.layout ? "typeof layoutModule.default === 'function' ? layoutModule.default : null" : 'null'};
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
