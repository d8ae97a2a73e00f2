// Reads a request's credentials once, from wherever its transport carries them; `authenticate` takes only this value.
import { PRINCIPAL_HEADER, type Credentials } from '@cp/principal';
import type { IncomingHttpHeaders } from 'node:http';

export type { Credentials } from '@cp/principal';

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

/**
 * An HTTP request's headers (Node lower-cases their names). A header that is present but empty is presented as is and
 * refused as a bad credential, as any other malformed value.
 */
export function httpCredentials(headers: IncomingHttpHeaders): Credentials {
  return {
    authorization: header(headers.authorization),
    apiKey: header(headers['x-api-key']),
    signed: header(headers[PRINCIPAL_HEADER]),
    requestId: header(headers['x-request-id']),
  };
}

/**
 * A graphql-ws connection: `connectionParams` when they carry any credential, else the upgrade request's headers
 * (gateways that propagate the client's headers to a subgraph's socket). Names are case-insensitive; empty values
 * count as absent (a gateway's header template with nothing to fill in sends ""). Apollo Router wraps its payload in
 * `{ connectionParams: … }`: those nested names count too, the outer ones winning.
 */
export function connectionCredentials(
  params: Record<string, unknown> | undefined,
  upgradeHeaders: IncomingHttpHeaders,
): Credentials {
  const nested = params?.connectionParams;
  const all = { ...(typeof nested === 'object' && nested ? nested : {}), ...params };
  const fromParams = new Map(Object.entries(all).map(([name, value]) => [name.toLowerCase(), value]));
  const read = (from: (name: string) => unknown): Credentials => {
    const value = (name: string) => {
      const v = from(name);
      return typeof v === 'string' && v !== '' ? v : undefined;
    };
    return {
      authorization: value('authorization'),
      apiKey: value('x-api-key'),
      signed: value(PRINCIPAL_HEADER),
      requestId: value('x-request-id'),
    };
  };
  const given = read((name) => fromParams.get(name));
  if (given.authorization ?? given.apiKey ?? given.signed) return given;
  return read((name) => upgradeHeaders[name]);
}

/** What a long-lived stream keeps to authenticate its caller again (access-watch.ts): the client's own credentials. */
export function clientCredentials({ authorization, apiKey }: Credentials): Credentials {
  return { authorization, apiKey };
}
