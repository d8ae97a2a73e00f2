// Media type from the bytes, never from the client; text formats file-type can't see are recognised by their start.
export const ACTIVE_TYPES = new Set([
  'text/html',
  'image/svg+xml',
  'text/javascript',
  'application/javascript',
  'application/xml',
  'text/xml',
  'application/xhtml+xml',
]);

export async function sniffType(head: Buffer): Promise<string> {
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(head);
  if (detected) return detected.mime === 'application/xml' && looksLikeSvg(head) ? 'image/svg+xml' : detected.mime;
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (looksLikeSvg(head)) return 'image/svg+xml';
  if (text.startsWith('<!doctype html') || text.startsWith('<html') || /^<(head|body|script|iframe)[\s>]/.test(text))
    return 'text/html';
  if (text.startsWith('<?xml')) return 'application/xml';
  if ((text.startsWith('{') || text.startsWith('[')) && isUtf8(head)) return 'application/json';
  if (isUtf8(head)) return 'text/plain';
  return 'application/octet-stream';
}

function looksLikeSvg(head: Buffer): boolean {
  return /<svg[\s>]/i.test(head.toString('utf8'));
}

function isUtf8(bytes: Buffer): boolean {
  // A cut multi-byte sequence at the end of the sample is not a reason to call the file binary.
  const sample = bytes.subarray(0, Math.max(0, bytes.length - 4));
  return !sample.includes(0) && Buffer.from(sample.toString('utf8'), 'utf8').equals(sample);
}
