// `npm run bench`: runs every benchmark in sequence (each prints a markdown table to paste into RESULTS.md).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
for (const file of readdirSync(here).filter((f) => f.endsWith('.mjs') && !['lib.mjs', 'run.mjs'].includes(f))) {
  if (only && !file.startsWith(only)) continue;
  // The soak takes ten minutes: it runs only when named (`node bench/run.mjs soak`).
  if (!only && file === 'soak.mjs') continue;
  const { status } = spawnSync(process.execPath, [`${here}/${file}`], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
