import { describe, expect, it } from 'vitest';
import { compileComponent } from './component-compiler';

const HERO = `/** Props of the hero banner. */
export interface Props {
  /** Headline. @minLength 1 */
  title: string;
  /** @minimum 0 @maximum 5 */
  rating?: number;
}
export function metadata() { return { title: 'Hero', description: 'A big banner' }; }
export default function render(props: Props) { return '<h1>' + props.title + '</h1>'; }`;

const withMetadata = (body: string, extra = '') =>
  `${extra}\nexport function metadata() { ${body} }\nexport default () => '';`;

async function failure(source: string): Promise<string> {
  try {
    await compileComponent(source);
  } catch (e) {
    const err = e as { code?: string; details?: { content?: string } };
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.details?.content).toEqual(expect.any(String));
    return err.details!.content!;
  }
  throw new Error('expected a BAD_REQUEST');
}

describe('compileComponent', () => {
  it('requires a default export that is a function (the render function every view and layout needs)', async () => {
    expect(
      await failure(withMetadata("return { title: 't', description: 'd' };").replace("export default () => '';", '')),
    ).toMatch(/export default/);
    expect(
      await failure(
        withMetadata("return { title: 't', description: 'd' };").replace(
          "export default () => '';",
          'export default 42;',
        ),
      ),
    ).toMatch(/export default/);
  });

  it('compiles to an ES module, reads metadata() in the sandbox, and derives the props schema with JSDoc constraints', async () => {
    const result = await compileComponent(HERO);
    expect(result.title).toBe('Hero');
    expect(result.description).toBe('A big banner');
    expect(result.compiled).toMatch(/export \{[^}]*default[^}]*\}|export default/);
    expect(result.compiled).toContain('metadata');
    expect(result.schema).toEqual({
      type: 'object',
      description: 'Props of the hero banner.',
      properties: {
        title: { type: 'string', description: 'Headline.', minLength: 1 },
        rating: { type: 'number', minimum: 0, maximum: 5 },
      },
      required: ['title'],
      additionalProperties: false,
    });
  });

  it('gives an empty object schema when the source exports no Props', async () => {
    expect((await compileComponent(withMetadata("return { title: 'T', description: '' };"))).schema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('reports compile errors with the compiler message', async () => {
    expect(await failure('export const = ;')).toMatch(/component\.ts:1/);
    expect(
      await failure(`import fs from 'node:fs';\n${withMetadata("return { title: 'x', description: '' };")}`),
    ).toMatch(/cannot import/);
  });

  it.each([
    ['a throw', withMetadata("throw new Error('boom');"), /boom/],
    ['a missing metadata()', 'export default () => 1;', /metadata\(\)/],
    ['a non-object result', withMetadata('return 42;'), /object/],
    ['no title', withMetadata("return { description: 'd' };"), /title/],
    ['an overlong title', withMetadata("return { title: 'x'.repeat(256), description: '' };"), /at most 255/],
    ['process', withMetadata('return { title: process.env.HOME, description: "" };'), /process/],
    [
      'require',
      withMetadata('return { title: require("fs").readFileSync("/etc/passwd", "utf8"), description: "" };'),
      /cannot import|require/,
    ],
    ['dynamic import', withMetadata('import("fs"); return { title: "x", description: "" };'), /cannot import/],
    // However spelled: esbuild finds them as the package bundle would (a regex missed these).
    [
      'require with a comment',
      withMetadata('return { title: "x", description: "" };') + '\nexport const f = () => require/**/("fs");',
      /cannot import/,
    ],
    [
      'import with a comment',
      withMetadata('return { title: "x", description: "" };') + '\nexport const f = () => import/**/("node:fs");',
      /cannot import/,
    ],
    [
      'import mid-line',
      `const z = 1; import x from 'y';\n${withMetadata('return { title: "x", description: "" };')}`,
      /cannot import/,
    ],
    [
      'import without spaces',
      `import{a}from'x';\n${withMetadata('return { title: "x", description: "" };')}`,
      /cannot import/,
    ],
    [
      'an overlong description',
      withMetadata("return { title: 'x', description: 'd'.repeat(10001) };"),
      /at most 10000/,
    ],
    ['fetch', withMetadata('fetch("http://127.0.0.1"); return { title: "x", description: "" };'), /fetch/],
    [
      'infinite recursion',
      withMetadata('const f = () => f(); return f();'),
      /stack|recursion|RangeError|InternalError/i,
    ],
    [
      'string doubling',
      withMetadata('let s = "x"; while (true) s += s; return {};'),
      /memory|interrupted|longer|InternalError|RangeError/i,
    ],
    [
      'a huge array',
      withMetadata('const a = new Array(1e9).fill(1); return { title: String(a.length), description: "" };'),
      /memory|RangeError|InternalError|longer/i,
    ],
  ])('refuses %s with 400', async (_name, source, message) => {
    expect(await failure(source)).toMatch(message);
  });

  it('stops an endless metadata() within the limit while the service keeps running', async () => {
    let ticks = 0;
    let longestGap = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 10);
    const started = Date.now();
    const [endless, topLevel, healthy] = await Promise.allSettled([
      compileComponent(withMetadata('while (true) {}')),
      compileComponent(`while (true) {}\n${withMetadata("return { title: 'x', description: '' };")}`),
      compileComponent(HERO),
    ]);
    const elapsed = Date.now() - started;
    clearInterval(timer);
    expect(endless.status).toBe('rejected');
    expect((endless as PromiseRejectedResult).reason.details.content).toMatch(/longer than 500 ms/);
    expect(topLevel.status).toBe('rejected');
    expect(healthy.status).toBe('fulfilled');
    // The main thread kept its timers running while the sandbox spun (no absolute-time bounds: CI machines are shared).
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(elapsed / 2);
  });

  it('derives a pathological Props type off the main thread, within a deadline', async () => {
    const digits = "type D = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';";
    const hostile = `${digits}\nexport interface Props {\n  code: \`\${D}\${D}\${D}\${D}\${D}\${D}\`;\n}\n${withMetadata("return { title: 'x', description: '' };")}`;
    let longestGap = 0;
    let last = Date.now();
    const started = Date.now();
    const timer = setInterval(() => {
      longestGap = Math.max(longestGap, Date.now() - last);
      last = Date.now();
    }, 10);
    const outcome = await compileComponent(hostile).then(
      () => 'compiled',
      (e) => (e as { code?: string }).code,
    );
    clearInterval(timer);
    expect(['compiled', 'BAD_REQUEST']).toContain(outcome);
    expect(longestGap).toBeLessThan((Date.now() - started) / 2);
    expect((await compileComponent(HERO)).title).toBe('Hero');
  });
});
