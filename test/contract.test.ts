// Black-box: contract gaps — version lists `{data}`, component creation errors as 400 field maps, one schema with subscriptions at /graphql.
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const base = `/app/v1${PROJECT}`;
const source = `
/** Props. */
export interface Props { title: string; }
export function metadata() { return { title: 'Card', description: 'A card' }; }
export default function render(props: Props) { return '<p>' + String((props as any).title) + '</p>'; }
`;

describe('contract', () => {
  const fx = useService();
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });

  it('answers version lists as {data}, newest first, on every family', async () => {
    const type = await call('POST', `${base}/content-types`, {
      name: 'Versioned',
      schema: { type: 'object', properties: { title: { type: 'string' } } },
    });
    expect(type.status).toBe(201);
    await call('POST', `${base}/content-types/${type.body.id}/publish`);
    await call('PUT', `${base}/content-types/${type.body.id}`, { description: 'second' });
    await call('POST', `${base}/content-types/${type.body.id}/publish`);
    const typeVersions = await call('GET', `${base}/content-types/${type.body.id}/versions`);
    expect(typeVersions.status).toBe(200);
    expect(typeVersions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    const key = await call('POST', `${base}/api-keys`, { name: 'versions reader' });
    const client = await fx.api.call('GET', `/api/v1${PROJECT}/content-types/${type.body.id}/versions`, {
      apiKey: key.body.key,
    });
    expect(client.status).toBe(200);
    expect(client.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    const entry = await call('POST', `${base}/content`, { typeId: type.body.id, name: 'e', content: { title: 'one' } });
    expect(entry.status).toBe(201);
    await call('POST', `${base}/content/${entry.body.id}/publish`);
    const contentVersions = await call('GET', `${base}/content/${entry.body.id}/versions`);
    expect(contentVersions.body).toEqual({ data: [expect.objectContaining({ version: 1 })] });
  });

  it('answers component version lists as {data}', async () => {
    // The first schema derivation warms a worker up; on a loaded machine it may pass its deadline, so retry that case only.
    let component = await call('POST', `${base}/components`, { name: 'Card', type: 'view', content: source });
    for (let i = 0; i < 3 && /longer than/.test(component.body.error?.details?.content ?? ''); i++) {
      component = await call('POST', `${base}/components`, { name: 'Card', type: 'view', content: source });
    }
    expect(component.body).toMatchObject({ name: 'Card' });
    await call('POST', `${base}/packages`, {});
    const componentVersions = await call('GET', `${base}/components/${component.body.id}/versions`);
    expect(componentVersions.body).toEqual({ data: [expect.objectContaining({ version: 1 })] });
  });

  it('answers GraphQL version lists as {data}', async () => {
    const type = await call('POST', `${base}/content-types`, { name: 'Versioned2', schema: { type: 'object' } });
    await call('POST', `${base}/content-types/${type.body.id}/publish`);
    await call('PUT', `${base}/content-types/${type.body.id}`, { description: 'second' });
    await call('POST', `${base}/content-types/${type.body.id}/publish`);
    const gql = await fx.api.graphql(
      `query($id: ID!) { contentTypeVersions(organizationId: "default", projectId: "default", id: $id) { data { version } } }`,
      { id: type.body.id },
      { token: fx.token },
    );
    expect(gql.body.data?.contentTypeVersions.data).toEqual([{ version: 2 }, { version: 1 }]);
  });

  it('refuses a component creation body missing members or with wrong types with 400 and a field map', async () => {
    const missing = await call('POST', `${base}/components`, { type: 'view', content: source });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { name: expect.any(String) } });

    const nothing = await call('POST', `${base}/components`, { name: 'Empty' });
    expect(nothing.status).toBe(400);
    expect(nothing.body.error.details).toEqual({ type: expect.any(String), content: expect.any(String) });

    const wrongType = await call('POST', `${base}/components`, { name: 42, type: 'view', content: source });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { name: expect.any(String) } });

    const wrongMetadata = await call('POST', `${base}/components`, {
      name: 'M',
      type: 'view',
      content: source,
      metadata: 'x',
    });
    expect(wrongMetadata.status).toBe(400);
    expect(wrongMetadata.body.error.details).toEqual({ metadata: expect.any(String) });

    // Elsewhere a missing member stays 422 VALIDATION_FAILED.
    const type = await call('POST', `${base}/content-types`, { description: 'no name, no schema' });
    expect(type.status).toBe(422);
    expect(type.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('shows Subscription.events and Event in HTTP introspection; the same document runs over graphql-ws', async () => {
    const introspection = await fx.api.graphql(
      `{ __schema { subscriptionType { name fields { name args { name } type { kind ofType { name } } } } }
         event: __type(name: "Event") { fields { name } } }`,
      undefined,
      { token: fx.token },
    );
    const subscription = introspection.body.data?.__schema.subscriptionType;
    expect(subscription.name).toBe('Subscription');
    const events = subscription.fields.find((f: { name: string }) => f.name === 'events');
    expect(events.args.map((a: { name: string }) => a.name).sort()).toEqual([
      'projectId',
      'resourceId',
      'resourceType',
    ]);
    expect(events.type.ofType.name).toBe('Event');
    expect(introspection.body.data?.event.fields.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['id', 'type', 'resourceType', 'resourceId', 'projectId', 'version', 'occurredAt']),
    );

    const document =
      'subscription($p: ID!) { events(projectId: $p, resourceType: "tags") { id type resourceType resourceId projectId version occurredAt } }';
    const overHttp = await fx.api.graphql(document, { p: 'default' }, { token: fx.token });
    expect(overHttp.status).toBe(400);
    expect(overHttp.body.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
    expect(overHttp.body.errors?.[0].message).toMatch(/graphql-ws/);

    const client = createClient({
      url: fx.service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${fx.token}` },
      retryAttempts: 0,
    });
    try {
      const received: any[] = [];
      let failure: unknown;
      client.subscribe(
        { query: document, variables: { p: 'default' } },
        { next: (m) => received.push(m), error: (e) => (failure = e), complete: () => undefined },
      );
      // Queries sent over the socket run through the gateway too.
      const viaSocket = await new Promise<any>((resolve, reject) =>
        client.subscribe(
          { query: '{ tags(organizationId: "default", projectId: "default") { pagination { total } } }' },
          { next: resolve, error: reject, complete: () => undefined },
        ),
      );
      expect(viaSocket.data.tags.pagination.total).toEqual(expect.any(Number));
      const tag = await call('POST', `${base}/tags`, { name: 'subscribed' });
      const deadline = Date.now() + 30_000;
      while (!received.some((m) => m.data?.events.resourceId === tag.body.id)) {
        if (failure) throw failure;
        if (Date.now() > deadline) throw new Error(`no event: ${JSON.stringify(received)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const event = received.find((m) => m.data?.events.resourceId === tag.body.id).data.events;
      expect(event).toMatchObject({
        type: 'tags.created',
        resourceType: 'tags',
        projectId: 'default',
        occurredAt: expect.any(String),
      });
    } finally {
      await client.dispose();
    }
  });
});
