// Key values: 256 random bits behind a recognisable prefix, kept only as a SHA-256 hash (created by the access module).
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Secret scanners (e.g. GitHub's) can match a fixed prefix; the rest is 32 random bytes, base64url. */
export const KEY_PREFIX = 'cpk_live_';
const KEY_PATTERN = /^cpk_live_[A-Za-z0-9_-]{43}$/;

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * A fast hash is enough here, unlike passwords: a 256-bit random key cannot be guessed or found in a
 * dictionary, so a slow KDF would only add latency to every client request without adding safety.
 */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function looksLikeKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/** Compares the stored hash with the presented key's hash in constant time. */
export function matchesHash(key: string, storedHash: string): boolean {
  const a = Buffer.from(hashKey(key), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
