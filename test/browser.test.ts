// Real browser (Debian's Chromium through playwright-core): /docs sends an authorised request; the GraphQL IDE runs a
// query and receives a subscription event over graphql-ws. Screenshots land in test/artifacts/ (kept by CI, gitignored).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const CHROMIUM = '/usr/bin/chromium';
/**
 * CI (.ci/run) installs Chromium and sets REQUIRE_BROWSER=1: there a missing Chromium fails this file, so CI never skips
 * it. Elsewhere (a developer's machine without Chromium) the file is skipped with one line that says how to run it.
 */
const REQUIRED = process.env.REQUIRE_BROWSER === '1';
const RUN = REQUIRED || existsSync(CHROMIUM);
if (!RUN)
  console.warn(
    `browser test skipped: no Chromium at ${CHROMIUM}; install it (apt-get install chromium) to run it, ` +
      'or set REQUIRE_BROWSER=1 to make its absence a failure',
  );
const ARTIFACTS = join(__dirname, 'artifacts');
const WAIT = { timeout: 60_000 };

let service: TestService;
let client: Client;
let token: string;
let browser: Browser;

/** Every request the page makes goes to the service itself: no CDN. */
function sameOriginOnly(page: Page): string[] {
  const foreign: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (!['http:', 'ws:', 'data:', 'blob:'].includes(url.protocol) || url.host !== new URL(service.url).host) {
      if (url.protocol !== 'data:' && url.protocol !== 'blob:') foreign.push(req.url());
    }
  });
  return foreign;
}

describe.runIf(RUN)('in Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: install it (apt-get install chromium)`,
      );
    mkdirSync(ARTIFACTS, { recursive: true });
    service = await startService();
    client = new Client(service.url);
    token = await client.login();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.destroy();
  });

  it('/docs: paste a bearer token, send GET /app/v1/organizations, see 200 and the data', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const foreign = sameOriginOnly(page);
    await page.goto(`${service.url}/docs`);
    await page.locator('.swagger-ui .opblock').first().waitFor(WAIT);

    await page.locator('.swagger-ui button.authorize').first().click();
    await page.locator('.modal-ux input#auth-bearer-value').fill(token);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const operation = page.locator('#operations-organizations-organizations');
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor(WAIT);
    expect((await status.innerText()).trim()).toBe('200');
    await expect
      .poll(
        () => operation.locator('.live-responses-table .response .response-col_description').first().innerText(),
        WAIT,
      )
      .toContain('"default"');
    await operation.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'docs-authorised-request.png') });
    expect(foreign).toEqual([]);
    await page.close();
  }, 240_000);

  it('GraphiQL: run a query, then a subscription that receives one event after a publish', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const foreign = sameOriginOnly(page);
    await page.goto(`${service.url}/graphql`);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor(WAIT);

    // What a user pastes into the Headers tab; the IDE passes it as HTTP headers and as graphql-ws connectionParams.
    await setEditor(
      page,
      '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror',
      JSON.stringify({ authorization: `Bearer ${token}` }),
    );
    // GraphiQL derives operationName from the editor after a debounce; the page's fetcher copes with a stale one, which
    // the anonymous subscription below relies on (it follows a named query at once).
    await setEditor(
      page,
      '.graphiql-query-editor .CodeMirror',
      'query Organizations { organizations { data { id name } } }',
    );
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => responseText(page), WAIT).toContain('"id": "default"');
    await page.screenshot({ path: join(ARTIFACTS, 'graphiql-query.png') });

    await setEditor(
      page,
      '.graphiql-query-editor .CodeMirror',
      'subscription { events(projectId: "default", resourceType: "tags") { id type resourceType resourceId } }',
    );
    const subscribed = new Promise<void>((resolve) =>
      page.on('websocket', (ws) =>
        ws.on('framesent', (frame) => String(frame.payload).includes('"subscribe"') && resolve()),
      ),
    );
    await page.locator('.graphiql-execute-button').click();
    await Promise.race([
      subscribed,
      page.waitForTimeout(60_000).then(() => Promise.reject(new Error('GraphiQL sent no graphql-ws subscribe frame'))),
    ]);
    // The server registers the subscription just after the frame arrives: publish until the event shows up.
    const name = `browser-${Date.now()}`;
    await expect
      .poll(
        async () => {
          const text = await responseText(page);
          if (!text.includes('tags.created'))
            await client.call('POST', `/app/v1${PROJECT}/tags`, { token, body: { name: `${name}-${Math.random()}` } });
          return text;
        },
        { timeout: 90_000, interval: 2000 },
      )
      .toContain('"type": "tags.created"');
    await page.screenshot({ path: join(ARTIFACTS, 'graphiql-subscription.png') });
    expect(foreign).toEqual([]);
    await page.close();
  }, 240_000);
});

async function setEditor(page: Page, selector: string, value: string) {
  await page.locator(selector).first().waitFor(WAIT);
  await page.evaluate(
    ([sel, text]) =>
      (
        (globalThis as any).document.querySelector(sel) as { CodeMirror: { setValue(v: string): void } }
      ).CodeMirror.setValue(text),
    [selector, value] as const,
  );
}

const responseText = (page: Page) =>
  page.evaluate(
    () =>
      (
        (globalThis as any).document.querySelector('.graphiql-response .CodeMirror') as {
          CodeMirror?: { getValue(): string };
        }
      )?.CodeMirror?.getValue() ?? '',
  );
