// Streams a multipart upload (`file`, optional `tags`, `folderId`, `metadata`) into storage, never buffering it whole.
import { AppError, BadRequestError, ValidationFailedError } from '@cp/errors';
import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { StorageFullError, TooLargeError, type AssetStorage, type StoredObject } from './storage';

export interface ParsedUpload {
  name: string;
  stored: StoredObject;
  tags?: string[];
  folderId?: string | null;
  metadata?: Record<string, unknown>;
}

/** Multipart framing around the file stays far below this; larger declared bodies are refused unread. */
const MULTIPART_OVERHEAD = 64 * 1024;

export async function receiveUpload(
  req: IncomingMessage,
  storage: AssetStorage,
  key: string,
  maxBytes: number,
): Promise<ParsedUpload> {
  if (!req.headers['content-type']?.startsWith('multipart/form-data')) {
    throw new BadRequestError('Uploads are multipart/form-data with a `file` part.', {
      contentType: req.headers['content-type'] ?? null,
    });
  }
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes + MULTIPART_OVERHEAD) throw tooLarge(maxBytes);

  const fields = new Map<string, string>();
  let file: Promise<{ name: string; stored: StoredObject }> | undefined;
  let partError: Error | undefined;
  // A client that disconnects makes `req` emit `error`; unhandled, that would end the process.
  req.on('error', () => undefined);
  const parsed = new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fields: 20, fieldSize: 64 * 1024, fileSize: maxBytes + 1 },
      });
    } catch (e) {
      return reject(malformed(e));
    }
    const stop = () => {
      req.unpipe(parser);
      req.resume();
    };
    parser.on('file', (field, stream, info) => {
      // busboy destroys every open part stream with "Unexpected end of form" when the body is cut short: every part
      // stream needs its own error listener from the first tick, or that error ends the process.
      stream.on('error', (e) => (partError ??= e));
      if (field !== 'file' || file) {
        stream.resume();
        return;
      }
      file = storage.put(key, stream, maxBytes).then((stored) => ({ name: sanitizeFileName(info.filename), stored }));
      // On failure (e.g. too large) stop parsing and discard the rest of the body unread; the caller answers at once.
      file.catch(() => {
        stop();
        resolve();
      });
    });
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('error', (e) => {
      stop();
      reject(malformed(e));
    });
    parser.on('close', () => resolve());
    // A client gone mid-body: end the parser too, which destroys the open part stream, so `file` settles and its
    // temporary bytes are removed instead of waiting forever for data that will not come.
    req.on('close', () => {
      if (req.complete) return;
      reject(new BadRequestError('The upload was interrupted.', {}));
      parser.destroy();
    });
    req.pipe(parser);
  });
  try {
    await parsed;
    if (!file) throw new ValidationFailedError([{ path: '/file', message: 'is required' }]);
    const { name, stored } = await file.catch((e) => {
      // The file part failed on its own stream error (cut body): that is the client's malformed request.
      if (e instanceof TooLargeError) throw tooLarge(maxBytes);
      // Checked before partError: the failed write also destroys the part stream, which would read as a cut body.
      if (e instanceof StorageFullError) throw new AppError('INSUFFICIENT_STORAGE');
      // The same for a store that failed (503 while it is out of reach).
      if (e instanceof AppError) throw e;
      throw partError ? malformed(partError) : e;
    });
    return { name, stored, ...parseFields(fields) };
  } catch (e) {
    // Nothing is kept from a failed upload: wait for the file part to settle, then remove whatever it wrote.
    await file?.catch(() => undefined);
    // A store that failed the put may fail this too; the put left nothing behind, so its error is the one to answer.
    await storage.remove(key).catch(() => undefined);
    throw e;
  }
}

function malformed(e: unknown) {
  return new BadRequestError('The multipart body is malformed.', {
    reason: e instanceof Error ? e.message : String(e),
  });
}

function tooLarge(maxBytes: number) {
  return new AppError('PAYLOAD_TOO_LARGE', `The file exceeds the limit of ${maxBytes} bytes.`, { limit: maxBytes });
}

function parseFields(fields: Map<string, string>): Omit<ParsedUpload, 'name' | 'stored'> {
  const out: Omit<ParsedUpload, 'name' | 'stored'> = {};
  const tags = fields.get('tags');
  if (tags !== undefined) {
    const parsed = tags.trim().startsWith('[') ? parseJson(tags, '/tags') : tags.split(',');
    if (!Array.isArray(parsed) || parsed.some((t) => typeof t !== 'string')) {
      throw new ValidationFailedError([
        { path: '/tags', message: 'must be a JSON array of strings or a comma-separated list' },
      ]);
    }
    out.tags = [...new Set((parsed as string[]).map((t) => t.trim()).filter(Boolean))];
  }
  const folderId = fields.get('folderId');
  if (folderId !== undefined) out.folderId = folderId === '' || folderId === 'null' ? null : folderId;
  const metadata = fields.get('metadata');
  if (metadata !== undefined) {
    const parsed = parseJson(metadata, '/metadata');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ValidationFailedError([{ path: '/metadata', message: 'must be a JSON object' }]);
    }
    out.metadata = parsed as Record<string, unknown>;
  }
  return out;
}

function parseJson(value: string, path: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new ValidationFailedError([{ path, message: 'must be valid JSON' }]);
  }
}

/** The client's file name, reduced to a safe last path segment (no traversal, no control characters). */
export function sanitizeFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex -- control characters are removed from file names on purpose
    .replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  return cleaned || 'file';
}
