// Image transformations: (a) a stored image variant against the original bytes on the same CDN route; (b) the latency of a
// first transformation (12-megapixel JPEG → 800-px-wide WebP) against the same sharp work done in this process.
import sharp from 'sharp';
import { createDatabase, load, login, report, startGateway } from './lib.mjs';

const PROJECT = '/organizations/default/projects/default';
const FIRSTS = Number(process.env.BENCH_IMAGE_FIRSTS ?? 15);

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/** A photo-like JPEG: smooth gradients with fine detail, so it compresses like a picture, not like noise or a fill. */
async function photo(width, height) {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const detail = 24 * Math.sin(x / 7) * Math.cos(y / 11);
      pixels[i] = (x * 255) / width + detail;
      pixels[i + 1] = (y * 255) / height - detail;
      pixels[i + 2] = 128 + 60 * Math.sin((x + y) / 90) + detail;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

async function ms(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** CPU time of this process (all threads, libvips' included) spent in `fn`: less sensitive to a busy machine. */
async function cpuMs(fn) {
  const start = process.cpuUsage();
  await fn();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

const db = await createDatabase();
const gateway = await startGateway({ DATABASE_URL: db.url });
try {
  const token = await login(gateway.url);
  const upload = async (bytes, name) => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    const headers = { authorization: `Bearer ${token}` };
    const res = await fetch(`${gateway.url}/app/v1${PROJECT}/assets`, { method: 'POST', headers, body: form });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const fetchOk = async (url) => {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return Buffer.from(await res.arrayBuffer());
  };

  // (a) Same route, same source: the original bytes, and a stored re-encoding of about the same size (so the ratio
  // measures the variant path, not a smaller body), plus a typical resized WebP.
  const source = await upload(await photo(1200, 800), 'photo.jpg');
  const reencoded = `${source.url}?fm=jpeg&q=85`;
  const resized = `${source.url}?w=600&fm=webp`;
  const kb = async (url) => Math.round((await fetchOk(url)).length / 1024);
  const original = await load(`original 1200×800 JPEG (${await kb(source.url)} KB), baseline`, { url: source.url });
  const variant = await load(`stored variant \`?fm=jpeg&q=85\` (${await kb(reencoded)} KB)`, { url: reencoded });
  const small = await load(`stored variant \`?w=600&fm=webp\` (${await kb(resized)} KB)`, { url: resized });
  report('Stored image variants vs the original bytes (CDN route)', original, [variant, small]);
  const ratio = (variant.rps / original.rps).toFixed(2);
  console.log(`\nstored variant / original throughput (about the same size): ${ratio} (target ≥ 0.80)\n`);

  // (b) First transformations: each upload is a new asset, so each request computes, stores and serves a new variant.
  const big = await photo(4000, 3000);
  const inProcess = [];
  const inProcessCpu = [];
  const transform = () => sharp(big).resize({ width: 800 }).webp({ quality: 80 }).toBuffer();
  for (let i = 0; i < FIRSTS; i++) inProcess.push(await ms(transform));
  for (let i = 0; i < FIRSTS; i++) inProcessCpu.push(await cpuMs(transform));
  const assets = [];
  for (let i = 0; i < FIRSTS; i++) assets.push(await upload(big, `big-${i}.jpg`));
  const served = [];
  for (const asset of assets) served.push(await ms(() => fetchOk(`${asset.url}?w=800&fm=webp`)));
  const row = (name, xs) => `| ${name} | ${percentile(xs, 50).toFixed(1)} | ${percentile(xs, 90).toFixed(1)} |`;
  console.log(
    [
      '### First transformation: 12-megapixel JPEG → 800-px-wide WebP',
      '',
      `${FIRSTS} sequential first requests, source ${(big.length / 2 ** 20).toFixed(1)} MB, ` +
        new Date().toISOString(),
      '',
      '| path | p50 ms | p90 ms |',
      '|---|---:|---:|',
      row('sharp in the bench process, from a buffer (baseline)', inProcess),
      row('the same, CPU time (user + system, all threads)', inProcessCpu),
      row('CDN `?w=800&fm=webp`, first request (lookup, header check, transform, store, send)', served),
      '',
      `p50 ratio to baseline: ${(percentile(served, 50) / percentile(inProcess, 50)).toFixed(2)}; ` +
        `p50 ${percentile(served, 50).toFixed(1)} ms (target ≤ 150 ms)`,
      '',
    ].join('\n'),
  );
} finally {
  await gateway.stop();
  await db.drop();
}
