// One webhook attempt over node:http(s), connecting to the address the SSRF guard checked (no second lookup).
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './target-guard';

/**
 * POSTs `body` and resolves with the response status (the response body is discarded). Redirects are not followed;
 * TLS still verifies the certificate against the URL's host name. Rejects on network errors, after `timeoutMs`, and
 * when `interrupt` aborts.
 */
export function pinnedPost(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  interrupt?: AbortSignal,
): Promise<number> {
  const { url, address } = target;
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    signal: interrupt ? AbortSignal.any([AbortSignal.timeout(timeoutMs), interrupt]) : AbortSignal.timeout(timeoutMs),
    agent: false,
  };
  if (address) options.lookup = pinnedLookup(address);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      // The status is all a delivery records: don't wait for (or let a receiver stall on) the body.
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', (err) => {
      if (err.name !== 'AbortError') return reject(err);
      reject(new Error(interrupt?.aborted ? 'interrupted: the process stopped' : `timed out after ${timeoutMs} ms`));
    });
    req.end(body);
  });
}

/** A lookup that answers the checked address whatever the name (callers with `all` get a one-element list). */
function pinnedLookup({ address, family }: NonNullable<CheckedTarget['address']>): LookupFunction {
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, list: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
}
