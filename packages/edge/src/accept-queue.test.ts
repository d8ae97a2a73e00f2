// pendingConnections against a real listener whose process does not accept (its event loop is blocked).
import { spawn } from 'node:child_process';
import { connect, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { pendingConnections } from './accept-queue';

const BLOCKED_LISTENER = `require('net').createServer().listen(0, '127.0.0.1', function () {
  console.log(this.address().port);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10000);
});`;

describe.runIf(process.platform === 'linux')('pendingConnections', () => {
  it('counts the connections queued on a listener that has not accepted them', async () => {
    const child = spawn(process.execPath, ['-e', BLOCKED_LISTENER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const sockets: Socket[] = [];
    try {
      const port = Number(
        await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(String(d).trim()))),
      );
      const server = { address: () => ({ port, address: '127.0.0.1', family: 'IPv4' }) } as unknown as Server;
      expect(await pendingConnections(server)).toBe(0);
      for (let i = 0; i < 3; i++) {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
      }
      expect(await pendingConnections(server)).toBe(3);
    } finally {
      sockets.forEach((s) => s.destroy());
      child.kill('SIGKILL');
    }
  });

  it('is undefined for a server that is not listening', async () => {
    expect(await pendingConnections({ address: () => null } as unknown as Server)).toBeUndefined();
  });
});
