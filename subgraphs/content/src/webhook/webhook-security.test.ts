import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { pinnedPost } from './pinned-post';
import { SecretBox } from './secret-box';
import { sign, verify } from './signature';
import { assertDeliverable, isPrivateAddress } from './target-guard';

describe('webhook security', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    // NAT64 (well-known and local-use), 6to4 and Teredo forms of 127.0.0.1 / 10.0.0.1.
    '64:ff9b::7f00:1',
    '64:ff9b::10.0.0.1',
    '::7f00:1',
    '::ffff:0:7f00:1',
    '::1',
    '::',
    '64:ff9b:1::a00:1',
    '2002:7f00:1::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
  ])('treats %s as private', (address) => expect(isPrivateAddress(address)).toBe(true));

  it('accepts public addresses and refuses private, odd schemes and credentials (SSRF)', async () => {
    expect(isPrivateAddress('93.184.216.34')).toBe(false);
    expect(isPrivateAddress('2606:4700::1111')).toBe(false);
    await expect(assertDeliverable('https://93.184.216.34/hook', false)).resolves.toMatchObject({
      url: expect.any(URL),
    });
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:127.0.0.1]/x',
      'http://localhost/x',
      'ftp://93.184.216.34/x',
      'http://u:p@93.184.216.34/',
      'not a url',
    ]) {
      await expect(assertDeliverable(url, false), url).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect((await assertDeliverable('http://127.0.0.1:9/x', true)).address).toBeUndefined();
    for (const url of ['http://[64:ff9b::7f00:1]/x', 'http://[2002:7f00:1::1]/x']) {
      await expect(assertDeliverable(url, false), url).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
  });

  it('connects to the address it checked, with no second DNS lookup', async () => {
    expect((await assertDeliverable('https://93.184.216.34/hook', false)).address).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(String(req.headers.host));
      req.resume();
      res.statusCode = 202;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      // `.invalid` never resolves (RFC 6761): reaching the server proves the pinned address was used.
      const url = new URL(`http://rebound.invalid:${port}/hook`);
      const status = await pinnedPost(
        { url, address: { address: '127.0.0.1', family: 4 } },
        { 'content-type': 'application/json' },
        '{}',
        5000,
      );
      expect(status).toBe(202);
      expect(seen).toEqual([`rebound.invalid:${port}`]);
      await expect(pinnedPost({ url }, {}, '{}', 5000)).rejects.toThrow();
    } finally {
      server.close();
    }
  });

  it('signs so that receivers can verify, and refuses tampering and stale timestamps', () => {
    const body = JSON.stringify({ id: 'd1' });
    const header = sign('s3cret-s3cret-s3cret', body);
    expect(verify('s3cret-s3cret-s3cret', body, header)).toBe(true);
    expect(verify('s3cret-s3cret-s3cret', `${body} `, header)).toBe(false);
    expect(verify('other-other-other-other', body, header)).toBe(false);
    expect(
      verify('s3cret-s3cret-s3cret', body, sign('s3cret-s3cret-s3cret', body, Math.floor(Date.now() / 1000) - 3600)),
    ).toBe(false);
  });

  it('keeps secrets encrypted at rest and authenticated', () => {
    const box = new SecretBox(new TextEncoder().encode('k'.repeat(40)));
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    const [iv, tag, body] = sealed.split('.');
    // Change the first ciphertext character (to another one: the random body may already start with it).
    expect(() => box.open([iv, tag, `${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`].join('.'))).toThrow();
    expect(() => new SecretBox(new TextEncoder().encode('x'.repeat(40))).open(sealed)).toThrow();
  });
});
