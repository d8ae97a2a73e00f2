// What the HTTP layer alone costs a cached read: node:http, Express 5 and Fastify 5 answering the same 2.5 KB JSON body
// after the same async stages (request scope in AsyncLocalStorage, an authentication lookup, a rate-limit check), with
// twenty other routes registered. CPU per request of each server process over a fixed number of requests, in rounds.
// `node bench/http-layer.mjs` (BENCH_REQUESTS, BENCH_ROUNDS).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { cpuSecondsOf, freePort } from './lib.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/** The server of one layer, as a program for `node -e` (its CPU must be its own process's). */
const SERVER = `
const { AsyncLocalStorage } = require('node:async_hooks');
const [kind, port] = process.argv.slice(1);
const body = Buffer.from(JSON.stringify({ id: 'x', content: 'y'.repeat(2500) }));
const scope = new AsyncLocalStorage();
const principals = new Map([['key', { projectId: 'p' }]]);
const authenticate = async (headers) => principals.get(headers['x-api-key']);
const admit = async () => true;
const send = (res) => {
  for (const [name, value] of [['ETag', '"abc"'], ['Cache-Control', 'public, no-cache'], ['Vary', 'x-api-key'],
    ['X-Request-ID', 'r'], ['Content-Type', 'application/json'], ['Content-Length', body.length]]) res.setHeader(name, value);
  res.end(body);
};
if (kind === 'node:http') {
  require('node:http').createServer((req, res) => scope.run({}, async () => {
    await authenticate(req.headers); await admit(); send(res);
  })).listen(port);
} else if (kind.startsWith('express')) {
  const http = require('node:http');
  const app = require('express')();
  // The gateway's server (packages/host express-server.ts): requests born with Express's prototypes.
  function AppRequest(socket) { http.IncomingMessage.call(this, socket); }
  AppRequest.prototype = app.request;
  function AppResponse(req, options) { http.ServerResponse.call(this, req, options); }
  AppResponse.prototype = app.response;
  for (let i = 0; i < 20; i++) app.get('/other/' + i + '/:id', (_req, res) => res.end());
  app.use((_req, _res, next) => scope.run({}, next));
  app.use('/api/v1', async (req, res, next) => { res.locals.principal = await authenticate(req.headers); next(); });
  app.use('/api/v1', async (_req, _res, next) => { if (await admit()) next(); });
  app.use('/api/v1', (_req, res) => send(res));
  if (kind === 'express') app.listen(port);
  else http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app).listen(port);
} else {
  const app = require('fastify')({ logger: false });
  for (let i = 0; i < 20; i++) app.get('/other/' + i + '/:id', async () => '');
  app.addHook('onRequest', (_req, _reply, done) => scope.run({}, done));
  app.addHook('preHandler', async (req) => { req.principal = await authenticate(req.headers); });
  app.addHook('preHandler', async () => { await admit(); });
  app.get('/api/v1/*', (_req, reply) => { reply.hijack(); send(reply.raw); });
  app.listen({ port: Number(port), host: '127.0.0.1' });
}`;

async function measure(kind) {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', SERVER, kind, String(port)], { stdio: 'inherit' });
  try {
    const options = { url: `http://127.0.0.1:${port}/api/v1/content/abc`, headers: { 'x-api-key': 'key' } };
    for (;;) {
      const up = await fetch(options.url, { headers: options.headers }).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await autocannon({ ...options, connections: 20, amount: Math.ceil(REQUESTS / 8) });
    const before = cpuSecondsOf(child.pid);
    const result = await autocannon({ ...options, connections: 20, amount: REQUESTS });
    if (result.non2xx + result.errors > 0) throw new Error(`${kind}: failed requests`);
    return ((cpuSecondsOf(child.pid) - before) * 1e6) / REQUESTS;
  } finally {
    child.kill();
  }
}

console.log(`### HTTP layer alone (bench/http-layer.mjs), ${REQUESTS} requests each, ${new Date().toISOString()}\n`);
const KINDS = ['node:http', 'express', 'express-born', 'fastify'];
console.log('| round | node:http | Express 5 (`app.listen`) | Express 5 (born with its prototypes) | Fastify 5 |');
console.log('|---:|---:|---:|---:|---:|');
for (let round = 1; round <= ROUNDS; round++) {
  const cpu = [];
  for (const kind of KINDS) cpu.push(await measure(kind));
  console.log(`| ${round} | ${cpu.map((us) => `${us.toFixed(1)} µs`).join(' | ')} |`);
}
