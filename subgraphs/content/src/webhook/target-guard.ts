// SSRF guard: webhook URLs must be http(s) and resolve to public addresses unless private targets are allowed.
import { ValidationFailedError } from '@cp/errors';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
// IPv6 forms that embed or translate to an IPv4 address are refused whole: NAT64 (well-known and local-use
// prefixes), 6to4, Teredo, IPv4-compatible (`::a.b.c.d`, deprecated) and IPv4-translated (`::ffff:0:a.b.c.d`, SIIT)
// could otherwise reach a private IPv4 host through a translator.
for (const [net, prefix] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  // IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged by its IPv4 part (a mapped-subnet rule would also match every IPv4 address).
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return PRIVATE.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return PRIVATE.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** The address a delivery connects to: the one that was checked, so a second DNS answer can't redirect it. */
export interface CheckedTarget {
  url: URL;
  /** Absent when private targets are allowed (nothing to pin against). */
  address?: { address: string; family: 4 | 6 };
}

/** Checked on create/update and again before every delivery (a name may be re-pointed after the check: DNS rebinding). */
export async function assertDeliverable(url: string, allowPrivate: boolean): Promise<CheckedTarget> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationFailedError([{ path: '/url', message: 'must be an absolute http(s) URL' }]);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ValidationFailedError([{ path: '/url', message: 'must use http or https' }]);
  }
  if (parsed.username || parsed.password)
    throw new ValidationFailedError([{ path: '/url', message: 'must not carry credentials' }]);
  if (allowPrivate) return { url: parsed };
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true }).catch(() => []);
  if (addresses.length === 0) throw new ValidationFailedError([{ path: '/url', message: 'host does not resolve' }]);
  if (addresses.some((a) => isPrivateAddress(a.address))) {
    throw new ValidationFailedError([
      { path: '/url', message: 'private, loopback and link-local addresses are not allowed' },
    ]);
  }
  const [first] = addresses;
  return { url: parsed, address: { address: first.address, family: first.family === 6 ? 6 : 4 } };
}
