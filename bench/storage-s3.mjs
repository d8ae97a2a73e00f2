// Asset bytes in an S3-compatible bucket (an s3rver process on this machine) against local disk, in the same run:
// (a) CDN GETs of a 100 KB original and of a stored variant, bucket ÷ disk throughput; (b) the gateway's peak RSS
// growth while a 50 MiB file streams into the bucket.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { cpuSecondsOf, createDatabase, DURATION_S, freePort, load, login, report, ROOT, startGateway } from './lib.mjs';

const PROJECT = '/organizations/default/projects/default';
const MiB = 1024 * 1024;

/** A photo-like JPEG of about 100 KB. */
async function photo() {
  const [width, height] = [960, 720];
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const detail = 24 * Math.sin(x / 7) * Math.cos(y / 11);
      pixels.set([(x * 255) / width + detail, (y * 255) / height - detail, 128 + detail], i);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
}

async function startS3rver() {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-s3-'));
  const port = await freePort();
  const bin = join(ROOT, 'node_modules/s3rver/bin/s3rver.js');
  const args = ['-d', dir, '-a', '127.0.0.1', '-p', String(port), '--silent', '--configure-bucket', 'assets'];
  const child = spawn(process.execPath, [bin, ...args, '--allow-mismatched-signatures'], { stdio: 'ignore' });
  for (let tries = 0; ; tries++) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (tries > 200 || child.exitCode !== null) throw new Error('s3rver did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pid: child.pid,
    env: {
      STORAGE_URL: 's3://assets/bench',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    stop: () =>
      new Promise((r) => (child.once('exit', r), child.kill('SIGKILL'))).then(() => rmSync(dir, { recursive: true })),
  };
}

const rss = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

/** Streams a multipart upload of `total` bytes (chunked, 256 KiB at a time) without holding it in this process. */
function streamUpload(url, token, total) {
  const boundary = 'cp-bench-boundary';
  return new Promise((resolve, reject) => {
    const req = request(`${url}/app/v1${PROJECT}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(text)) : reject(new Error(text))));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(256 * 1024, 7);
    const write = (c) => new Promise((done) => (req.write(c) ? done() : req.once('drain', done)));
    (async () => {
      await write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
      for (let sent = 0; sent < total; sent += chunk.length) await write(chunk);
      req.end(`\r\n--${boundary}--\r\n`);
    })().catch(reject);
  });
}

const s3 = await startS3rver();
const db = await createDatabase();
// BENCH_PROFILE=<dir>: both gateways run under --cpu-prof, their profiles written there when they stop.
const profile = process.env.BENCH_PROFILE;
const options = { flags: profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [] };
const disk = await startGateway({ DATABASE_URL: db.url, EMBEDDINGS: 'off' }, options);
const bucket = await startGateway({ DATABASE_URL: db.url, EMBEDDINGS: 'off', ...s3.env }, options);
try {
  const token = await login(disk.url);
  const bytes = await photo();
  const upload = async (gateway) => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'photo.jpg');
    const headers = { authorization: `Bearer ${token}` };
    const res = await fetch(`${gateway.url}/app/v1${PROJECT}/assets`, { method: 'POST', headers, body: form });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    const { url } = await res.json();
    const path = `${gateway.url}${new URL(url).pathname}`;
    // The variant is computed and stored by this first request; the load reads the stored one.
    if ((await fetch(`${path}?fm=jpeg&q=85`)).status !== 200) throw new Error('variant');
    return path;
  };
  const onDisk = await upload(disk);
  const inBucket = await upload(bucket);
  const kb = Math.round(bytes.length / 1024);
  // CPU per request of the serving gateway and of s3rver, which shares this machine's cores with it.
  const cpu = [];
  const measured = async (name, gateway, url) => {
    const pids = { gateway: gateway.pid, s3rver: s3.pid };
    const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSecondsOf(pid)]));
    const from = process.hrtime.bigint() / 1000n;
    const result = await load(name, { url });
    // With a profile, the load's window on the monotonic clock (bench/profile-summary.mjs … @from-to).
    if (profile) console.log(`${name}: pid ${gateway.pid} @${from}-${process.hrtime.bigint() / 1000n}`);
    const requests = result.rps * DURATION_S;
    const perRequest = (k) => (((cpuSecondsOf(pids[k]) - before[k]) * 1e6) / requests).toFixed(0);
    cpu.push(`| ${name} | ${perRequest('gateway')} | ${perRequest('s3rver')} |`);
    return result;
  };
  const diskOriginal = await measured(`original ${kb} KB from local disk (baseline)`, disk, onDisk);
  const bucketOriginal = await measured(`original ${kb} KB from the bucket`, bucket, inBucket);
  const diskVariant = await measured('stored variant `?fm=jpeg&q=85` from local disk', disk, `${onDisk}?fm=jpeg&q=85`);
  const bucketVariant = await measured(
    'stored variant `?fm=jpeg&q=85` from the bucket',
    bucket,
    `${inBucket}?fm=jpeg&q=85`,
  );
  report('CDN GET: S3-compatible bucket (s3rver, same machine) vs local disk', diskOriginal, [
    bucketOriginal,
    diskVariant,
    bucketVariant,
  ]);
  console.log(
    ['', '| scenario | gateway µs CPU / request | s3rver µs CPU / request |', '|---|---:|---:|', ...cpu].join('\n'),
  );
  const ratio = (x, y) => (x.rps / y.rps).toFixed(2);
  console.log(
    `\nbucket / disk throughput: original ${ratio(bucketOriginal, diskOriginal)}, ` +
      `variant ${ratio(bucketVariant, diskVariant)} (target ≥ 0.5)\n`,
  );

  // Three uploads, the worst reported: RSS also moves with garbage collection, which a single run can catch or miss.
  await streamUpload(bucket.url, token, 1000);
  const growths = [];
  for (let i = 0; i < 3; i++) {
    const baseline = rss(bucket.pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(bucket.pid))), 5);
    await streamUpload(bucket.url, token, 50 * MiB).finally(() => clearInterval(sampler));
    growths.push((peak - baseline) / MiB);
  }
  console.log(
    `50 MiB uploads into the bucket: gateway peak RSS growth ${growths.map((g) => g.toFixed(1)).join(', ')} MiB; ` +
      `worst ${Math.max(...growths).toFixed(1)} MiB (target ≤ 32 MB)\n`,
  );
} finally {
  await bucket.stop();
  await disk.stop();
  await db.drop();
  await s3.stop();
}
