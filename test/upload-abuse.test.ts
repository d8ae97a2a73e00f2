// Black-box: malformed multipart bodies (cut before the closing boundary, broken framing) answer 400 and store nothing.
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { rawRequest } from './support/raw-http';
import { useService } from './support/setup';

const source = `
export interface Props { title: string }
export function metadata() { return { title: 'Cut', description: 'About cut' }; }
export default function render(props: Props) { return '<h1>' + props.title + '</h1>'; }
`;

const rawPost = (url: string, token: string, contentType: string, body: string) =>
  rawRequest(
    new URL(url).origin,
    'POST',
    new URL(url).pathname,
    { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  );

const files = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => join(d.parentPath, d.name))
    : [];

const CUT = '--XB\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nunterminated';
const CASES: [string, string, string][] = [
  ['cut before the closing boundary', 'multipart/form-data; boundary=XB', CUT],
  [
    'cut inside the part headers',
    'multipart/form-data; boundary=XB',
    '--XB\r\nContent-Disposition: form-data; name="file"; filen',
  ],
  ['no boundary parameter', 'multipart/form-data', CUT],
  [
    'a field part cut short',
    'multipart/form-data; boundary=XB',
    '--XB\r\nContent-Disposition: form-data; name="tags"\r\n\r\nhero',
  ],
  ['garbage', 'multipart/form-data; boundary=XB', '\u0000\u0001garbage--XB--'],
];

describe('malformed uploads', () => {
  const fx = useService();
  const base = `/app/v1${PROJECT}`;

  it('answers 400 with the envelope on both upload routes, stays up and stores nothing', async () => {
    // The sandbox's 500 ms CPU deadline can trip on a cold worker of a heavily loaded machine: retry that case only.
    let component = await fx.api.call('POST', `${base}/components`, {
      token: fx.token,
      body: { name: 'Cut', type: 'view', content: source },
    });
    for (let i = 0; i < 10 && /longer than/.test(component.body?.error?.details?.content ?? ''); i++) {
      component = await fx.api.call('POST', `${base}/components`, {
        token: fx.token,
        body: { name: 'Cut', type: 'view', content: source },
      });
    }
    expect(component.status, JSON.stringify(component.body)).toBe(201);
    const routes = [`${base}/assets`, `${base}/components/${component.body.id}/assets`];
    for (const route of routes) {
      for (const [label, type, body] of CASES) {
        const res = await rawPost(`${fx.service.url}${route}`, fx.token, type, body);
        expect({ route, label, status: res.status, code: res.body?.error?.code }).toEqual({
          route,
          label,
          status: 400,
          code: 'BAD_REQUEST',
        });
        expect((await fx.api.call('GET', '/health')).status).toBe(200);
      }
    }
    // A client that disconnects mid-upload: the service stays up and keeps nothing either.
    for (const route of routes) {
      await new Promise<void>((resolve) => {
        const req = request(`${fx.service.url}${route}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${fx.token}`,
            'content-type': 'multipart/form-data; boundary=XB',
            'content-length': '100000',
          },
        });
        req.on('error', () => resolve());
        req.write(CUT, () => setTimeout(() => (req.destroy(), resolve()), 200));
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await fx.api.call('GET', '/health')).status).toBe(200);
    const assets = await fx.api.call('GET', `${base}/assets`, { token: fx.token });
    expect(assets.body.data.map((a: any) => [a.name, a.size, a.status, a.type])).toEqual([]);
    const componentAssets = await fx.api.call('GET', `${base}/components/${component.body.id}/assets`, {
      token: fx.token,
    });
    expect(componentAssets.body.data ?? componentAssets.body).toEqual([]);
    expect(files(join(fx.service.dataDir ?? fx.service.env.DATA_DIR, 'assets'))).toEqual([]);
    expect(fx.service.child.exitCode).toBeNull();
  });
});
