// Real HTTP clients for black-box tests: REST calls and GraphQL operations with the admin or a key.
import { ADMIN } from './service';
import { waitFor } from './wait';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  token?: string;
  apiKey?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export class Client {
  constructor(readonly baseUrl: string) {}

  async call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  graphql<T = any>(query: string, variables?: Record<string, unknown>, options: Omit<CallOptions, 'body'> = {}) {
    return this.call<{
      data?: T;
      errors?: { message: string; extensions?: { code?: string; details?: any } }[];
      extensions?: Record<string, unknown>;
    }>('POST', '/graphql', { ...options, body: { query, variables } });
  }

  /**
   * Signs in. A 503 is the service asking to be asked again (`Retry-After`), as when its database probe timed out on a
   * loaded machine while services start: the sign-in follows it a few times, as a client would.
   */
  async login(email = ADMIN.email, password = ADMIN.password): Promise<string> {
    let last: HttpResult | undefined;
    const res = await waitFor(
      () => `a sign-in not refused with 503 (last: ${JSON.stringify(last?.body)})`,
      async () => {
        last = await this.call('POST', '/app/v1/auth/login', { body: { email, password } });
        return last.status === 503 ? undefined : last;
      },
      // The service's Retry-After is 2 s.
      { timeoutMs: 10_000, intervalMs: 2_000 },
    );
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token;
  }
}

export const PROJECT = '/organizations/default/projects/default';
