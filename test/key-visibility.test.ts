// Black-box: API keys (public credentials) see at most the id of the staff who created things.
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
const VIEW = `export function metadata() { return { title: 'Card', description: 'A card' }; }
export default function render() { return '<div></div>'; }`;
const STAFF = /admin@example\.com|Administrator/;

describe('what API keys see of staff', () => {
  const fx = useService();
  const ids: { type?: string; content?: string } = {};
  let key: string;
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });

  beforeAll(async () => {
    // The component sandbox has a deadline that a loaded machine can miss on its first, cold run: retry.
    for (let attempt = 0; attempt < 15; attempt++) {
      const component = await call('POST', `${app}/components`, { name: 'Card', type: 'view', content: VIEW });
      if (component.status === 201) break;
      console.warn(`component creation answered ${component.status} ${JSON.stringify(component.body)}; retrying`);
      await new Promise((r) => setTimeout(r, 3000));
    }
    expect((await call('POST', `${app}/packages`, {})).status).toBe(201);
    const type = await call('POST', `${app}/content-types`, {
      name: 'Note',
      schema: { type: 'object', properties: { title: { type: 'string' } } },
    });
    expect(type.status).toBe(201);
    ids.type = type.body.id;
    expect((await call('POST', `${app}/content-types/${ids.type}/publish`)).status).toBe(200);
    const content = await call('POST', `${app}/content`, {
      typeId: ids.type,
      name: 'Authored',
      content: { title: 'By staff' },
    });
    expect(content.status).toBe(201);
    ids.content = content.body.id;
    expect((await call('POST', `${app}/content/${ids.content}/publish`)).status).toBe(200);
    key = (await call('POST', `${app}/api-keys`, { name: 'site' })).body.key;
  });

  it('resolves createdBy to the id alone on content, content types and packages over GraphQL', async () => {
    const res = await fx.api.graphql(
      `{ contents(organizationId: "default", projectId: "default") { data { createdBy { id email name roleId organizationId createdAt updatedAt } } }
         contentTypes(organizationId: "default", projectId: "default") { data { createdBy { id email name roleId } } }
         packages(organizationId: "default", projectId: "default") { data { createdBy { id email name roleId } } } }`,
      {},
      { apiKey: key },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const { contents, contentTypes, packages } = res.body.data;
    for (const list of [contents, contentTypes, packages]) {
      expect(list.data.length).toBeGreaterThan(0);
      for (const item of list.data)
        expect(item.createdBy).toMatchObject({ id: expect.any(String), email: null, name: null, roleId: null });
    }
    expect(contents.data[0].createdBy).toMatchObject({ organizationId: null, createdAt: null, updatedAt: null });
    // Staff still see who it was.
    const admin = await fx.api.graphql(
      `{ contentTypes(organizationId: "default", projectId: "default") { data { createdBy { email name } } } }`,
      {},
      { token: fx.token },
    );
    expect(admin.body.data.contentTypes.data[0].createdBy).toEqual({
      email: 'admin@example.com',
      name: 'Administrator',
    });
  });

  it('leaks no email, name or role under /api/v1', async () => {
    for (const path of [
      `${api}/content`,
      `${api}/content/${ids.content}/resolved`,
      `${api}/content-types`,
      `${api}/content-types/${ids.type}`,
      `${api}/packages`,
    ]) {
      const read = await fx.api.call('GET', path, { apiKey: key });
      expect(read.status, path).toBe(200);
      expect(JSON.stringify(read.body), path).not.toMatch(STAFF);
    }
  });
});
