/** autocannon in a process of its own, so that the load it makes does not share the test's event loop. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { root } from './service.ts';

export interface LoadReport {
  requests: number;
  ok: number;
  other: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

/** Starts a GET load; the promise resolves with its report once it ends. */
export function getLoad(
  url: string,
  seconds: number,
  connections: number,
): { child: ChildProcess; done: Promise<LoadReport> } {
  const args = [path.join(root, 'node_modules/autocannon/autocannon.js'), '-j', '-c', String(connections)];
  args.push('-d', String(seconds), url);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<LoadReport>((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const report = JSON.parse(out) as {
        requests: { total: number };
        latency: { p50: number; p99: number; max: number };
        '2xx': number;
        non2xx: number;
        errors: number;
      };
      resolve({
        requests: report.requests.total,
        ok: report['2xx'],
        other: report.non2xx,
        errors: report.errors,
        p50: report.latency.p50,
        p99: report.latency.p99,
        max: report.latency.max,
      });
    });
  });
  return { child, done };
}
