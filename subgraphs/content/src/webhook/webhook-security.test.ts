import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box';
import { sign, verify } from './signature';
import { assertDeliverable, isPrivateAddress } from './target-guard';

describe('webhook security', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])(
    'treats %s as private',
    (address) => expect(isPrivateAddress(address)).toBe(true),
  );

  it('accepts public addresses and refuses private, odd schemes and credentials (SSRF)', async () => {
    expect(isPrivateAddress('93.184.216.34')).toBe(false);
    await expect(assertDeliverable('https://93.184.216.34/hook', false)).resolves.toBeUndefined();
    for (const url of ['http://127.0.0.1:9/x', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/x', 'http://localhost/x', 'ftp://93.184.216.34/x', 'http://u:p@93.184.216.34/', 'not a url']) {
      await expect(assertDeliverable(url, false), url).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    await expect(assertDeliverable('http://127.0.0.1:9/x', true)).resolves.toBeUndefined();
  });

  it('signs so that receivers can verify, and refuses tampering and stale timestamps', () => {
    const body = JSON.stringify({ id: 'd1' });
    const header = sign('s3cret-s3cret-s3cret', body);
    expect(verify('s3cret-s3cret-s3cret', body, header)).toBe(true);
    expect(verify('s3cret-s3cret-s3cret', `${body} `, header)).toBe(false);
    expect(verify('other-other-other-other', body, header)).toBe(false);
    expect(verify('s3cret-s3cret-s3cret', body, sign('s3cret-s3cret-s3cret', body, Math.floor(Date.now() / 1000) - 3600))).toBe(false);
  });

  it('keeps secrets encrypted at rest and authenticated', () => {
    const box = new SecretBox(new TextEncoder().encode('k'.repeat(40)));
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    const [iv, tag, body] = sealed.split('.');
    expect(() => box.open([iv, tag, `A${body.slice(1)}`].join('.'))).toThrow();
    expect(() => new SecretBox(new TextEncoder().encode('x'.repeat(40))).open(sealed)).toThrow();
  });
});
