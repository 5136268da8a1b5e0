import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, createConnection } from 'node:net';

// A real redis-server (Debian's redis-server package; .ci/run installs it) on a free loopback
// port, persistence off. Tests of the rate store never mock it: where it is missing, they skip.

/** Why redis-server cannot run here, or undefined when it can. */
export const redisMissing: string | undefined = (() => {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return found.status === 0
    ? undefined
    : 'redis-server is not installed (apt-get install redis-server)';
})();

export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:port, with `password` if the server has one. */
  url(password?: string): string;
  /** Clients connected now. */
  clients(): Promise<number>;
  /** Runs one inline command (e.g. FLUSHALL) on a connection of its own; its first reply line. */
  command(line: string): Promise<string>;
  /** Stops it (SIGKILL: a store lost, not shut down). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty: persistence is off. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.end('PING\r\n');
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** INFO clients's count, less the connection that asks. */
function connectedClients(port: number, password?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const found = /connected_clients:(\d+)/.exec(text);
      if (found) {
        socket.destroy();
        resolve(Number(found[1]) - 1);
      }
    });
    socket.on('error', reject);
    socket.write(`${password ? `AUTH ${password}\r\n` : ''}INFO clients\r\n`);
  });
}

function inline(port: number, line: string, password?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const lines = text.split('\r\n');
      const wanted = password ? 2 : 1;
      if (lines.length > wanted) {
        socket.destroy();
        resolve(lines[wanted - 1]!);
      }
    });
    socket.on('error', reject);
    socket.write(`${password ? `AUTH ${password}\r\n` : ''}${line}\r\n`);
  });
}

/**
 * Starts redis-server; `password` makes it refuse clients without it; `args` are more of its
 * options (`--rename-command AUTH ''`).
 */
export async function startRedis(
  options: { password?: string; args?: string[] } = {},
): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ];
    if (options.password) args.push('--requirepass', options.password);
    args.push(...(options.args ?? []));
    child = spawn('redis-server', args, { stdio: 'ignore' });
    for (let tries = 0; tries < 200; tries++) {
      if (await answers(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise((resolve) => {
      running.once('exit', resolve);
      running.kill('SIGKILL');
    });
  };
  await start();
  return {
    port,
    clients: () => connectedClients(port, options.password),
    command: (line) => inline(port, line, options.password),
    url: (password) =>
      `redis://${password ? `:${encodeURIComponent(password)}@` : ''}127.0.0.1:${port}`,
    kill,
    restart: start,
    close: kill,
  };
}
