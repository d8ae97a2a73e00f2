import { transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildContentModule, bundleWhole } from './content-module';

const compile = async (ts: string) => (await transform(ts, { loader: 'ts', format: 'esm' })).code;
/** Imports the module in a separate Node process, as a client would, and reports what it exports and renders. */
function load(code: string, tree?: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bundle-'));
  const file = join(dir, 'entry.mjs');
  writeFileSync(file, code);
  const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)});
    console.log(JSON.stringify({ meta: m.meta, content: m.content, names: Object.keys(m.components).sort(),
      layout: m.layout === null ? null : typeof m.layout, html: m.default(), tree: m.renderTree(${JSON.stringify(tree ?? [])}) }));`;
  try {
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('content module', () => {
  it('bundles data, layout and components, and renders the component tree', async () => {
    const hero = await compile(`export interface Props { title: string }
      export function metadata() { return { title: 'Hero', description: 'd' }; }
      export default function render(p: Props, children: string) { return '<h1>' + p.title + '</h1>' + children; }`);
    const text = await compile(
      `export default function render(p: { body: string }) { return '<p>' + p.body + '</p>'; }`,
    );
    const page = await compile(
      `export default function layout({ meta, children }: any) { return '<main data-id="' + meta.id + '">' + children + '</main>'; }`,
    );
    const code = await buildContentModule({
      content: {
        title: 'x',
        components: [
          { type: 'Hero', props: { title: 'Hi' }, children: [{ type: 'Text', props: { body: 'nested' } }] },
          { type: 'Text', props: { body: 'b' } },
        ],
      },
      meta: { id: 'e1', packageVersion: '1.0.0' },
      layout: { name: 'Page', compiled: page },
      components: [
        { name: 'Hero', compiled: hero },
        { name: 'Text', compiled: text },
      ],
    });
    const mod = load(code, [{ type: 'Text', props: { body: 'alone' } }]);
    expect(mod.meta).toEqual({ id: 'e1', packageVersion: '1.0.0' });
    expect(mod.content.title).toBe('x');
    expect(mod.names).toEqual(['Hero', 'Text']);
    expect(mod.layout).toBe('function');
    expect(mod.html).toBe('<main data-id="e1"><h1>Hi</h1><p>nested</p><p>b</p></main>');
    expect(mod.tree).toBe('<p>alone</p>');
  });

  it('works without layout or components (data only)', async () => {
    const mod = load(await buildContentModule({ content: { title: 't' }, meta: { id: 'e2' }, components: [] }));
    expect(mod.content).toEqual({ title: 't' });
    expect(mod.layout).toBeNull();
    expect(mod.html).toBe('');
  });

  it('tolerates components and a layout without a default export: they render nothing, the bundle still builds', async () => {
    const bare = await compile(`export function metadata() { return { title: 'Bare', description: 'd' }; }`);
    const text = await compile(
      `export default function render(p: { body: string }) { return '<p>' + p.body + '</p>'; }`,
    );
    const mod = load(
      await buildContentModule({
        content: {
          components: [
            { type: 'Bare', props: {} },
            { type: 'Text', props: { body: 'b' } },
          ],
        },
        meta: { id: 'e3' },
        layout: { name: 'BareLayout', compiled: bare },
        components: [
          { name: 'Bare', compiled: bare },
          { name: 'Text', compiled: text },
        ],
      }),
    );
    expect(mod.names).toEqual(['Bare', 'Text']);
    expect(mod.layout).toBeNull();
    expect(mod.html).toBe('<p>b</p>');
  });
});

describe('content module shells', () => {
  /** Evaluates a module in this process: its data, the component names and what it renders. */
  async function evaluate(code: string) {
    const m = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
    const names = Object.keys(m.components).sort();
    return { content: m.content, meta: m.meta, names, layout: m.layout === null, html: m.default() };
  }
  const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 60) };

  it('data spliced into a cached shell gives the module esbuild builds with the data (differential)', async () => {
    const text = await compile(`export default (p: { body: string }) => '<p>' + p.body + '</p>';`);
    const page = await compile(`export default ({ meta, children }: any) => '<main id="' + meta.id + '">' + children;`);
    const node = fc.record({ type: fc.constant('Text'), props: fc.record({ body: fc.string() }) });
    const document = fc.record({
      title: fc.string(),
      data: fc.jsonValue(),
      components: fc.array(node, { maxLength: 3 }),
    });
    const meta = fc.dictionary(fc.string(), fc.jsonValue());
    await fc.assert(
      fc.asyncProperty(document, meta, fc.boolean(), async (content, extra, withLayout) => {
        const input = {
          content,
          meta: { ...extra, id: 'e' },
          layout: withLayout ? { name: 'Page', compiled: page } : null,
          components: [{ name: 'Text', compiled: text }],
        };
        expect(await evaluate(await buildContentModule(input))).toEqual(await evaluate(await bundleWhole(input)));
      }),
      runs,
    );
  });

  it('a component whose source holds a placeholder falls back to bundling each entry whole', async () => {
    const tricky = await compile(`export default () => "__cp_content_placeholder__";`);
    const content = { title: 't', components: [{ type: 'T' }] };
    const input = { content, meta: { id: 'e' }, components: [{ name: 'T', compiled: tricky }] };
    const mod = await evaluate(await buildContentModule(input));
    expect(mod.content).toEqual(input.content);
    expect(mod.html).toBe('__cp_content_placeholder__');
  });
});
