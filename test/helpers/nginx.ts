// Debian's nginx with limit_req in front of the contract's operations (`backend`: real-limiters.ts's
// plainContract), on `port` (real-limiters.ts's freePort), with its own config, prefix, pid, logs and temp
// paths in a folder of its own: never the system's /etc/nginx or /var. Its access log, with
// each request's time and status, is the server's own record of a run.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Answered, LimiterServer } from './real-limiters.js';

export const NGINX = '/usr/sbin/nginx';
export const nginxMissing = existsSync(NGINX) ? undefined : `${NGINX} is not installed`;

/** nginx limit_req at `rate` a second (burst=0, limit_req_status 429, no rate headers). */
export async function startNginx(
  folder: string,
  rate: number,
  backend: LimiterServer,
  port: number,
) {
  const at = (name: string) => join(folder, name);
  const conf = `daemon off;
master_process off;
pid ${at('nginx.pid')};
error_log ${at('error.log')};
events { worker_connections 256; }
http {
  log_format timed '$msec $status $request_method';
  access_log ${at('access.log')} timed;
  client_body_temp_path ${at('body')};
  proxy_temp_path ${at('proxy')};
  fastcgi_temp_path ${at('fastcgi')};
  uwsgi_temp_path ${at('uwsgi')};
  scgi_temp_path ${at('scgi')};
  limit_req_zone $http_authorization zone=key:1m rate=${rate}r/s;
  server {
    listen 127.0.0.1:${port};
    location / {
      limit_req zone=key;
      limit_req_status 429;
      proxy_pass ${backend.baseUrl.replace(/\/v1$/, '')};
    }
  }
}
`;
  writeFileSync(at('nginx.conf'), conf);
  const child = spawn(NGINX, ['-p', folder, '-c', at('nginx.conf'), '-e', at('error.log')], {
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  for (let i = 0; i < 100 && !(await listening(port)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const log = (): Answered[] =>
    (existsSync(at('access.log')) ? readFileSync(at('access.log'), 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [msec, status, method] = line.split(' ');
        return { at: Math.round(Number(msec) * 1000), status: Number(status), method: method! };
      });
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    key: backend.key,
    created: backend.created,
    log,
    pid: child.pid,
    async close() {
      child.kill('SIGQUIT');
      await exited;
      await backend.close();
    },
  };
}

async function listening(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
}
