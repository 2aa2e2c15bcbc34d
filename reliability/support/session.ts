/** A session of a real service, started and waited for as a person's launch would. */
import { call, type Answer } from './http.ts';
import { until, type Service } from './service.ts';
import type { IceServer } from '../../server/door/turn-credentials.ts';

/** A ready session: its id and the signaling URL its viewers connect to. */
export interface ReadySession {
  id: string;
  signaling: string;
}

/** POST /stream for `app` on `profile`, then waits until it is ready; a session that fails throws its reason. */
export async function readySession(
  service: Service,
  app: string,
  profile: string,
  timeoutMs = 60_000,
): Promise<ReadySession> {
  const created = await call(`${service.api}/stream`, { method: 'POST', body: { id: app, profile } });
  const id = created.body.id as string;
  return { id, signaling: signalingOf(await readyAnswer(service, id, timeoutMs)) };
}

/** The signaling URL in the answer of a ready session, where its viewers connect. */
export function signalingOf(ready: Answer): string {
  const routes = Object.values(
    ready.body.routes as Record<string, { description: string; source_port: number }[]>,
  ).flat();
  const port = routes.find((route) => route.description === 'signaling')?.source_port;
  return `http://127.0.0.1:${port}`;
}

/** Waits until session `id` is ready and returns its answer; a session that fails throws its reason. */
export function readyAnswer(service: Service, id: string, timeoutMs = 60_000): Promise<Answer> {
  return until(
    `session ${id} to be ready`,
    async () => {
      const res = await call(`${service.api}/stream/${id}`);
      if (res.status === 410) throw new Error(`session ${id} failed: ${res.text}`);
      return res.status === 200 ? res : undefined;
    },
    timeoutMs,
  );
}

/**
 * A viewer ticket of session `id` (a control one unless told), asked for as its owner would (`token`, none where
 * the service has no tokens file), and the relays that come with it. Throws the reply when it is not a 201.
 */
export async function viewerTicket(
  api: string,
  id: string,
  options: { scope?: 'control' | 'watch'; token?: string } = {},
): Promise<{ ticket: string; iceServers: IceServer[] }> {
  const res = await call(`${api}/stream/${id}/tickets`, {
    method: 'POST',
    ...(options.token ? { token: options.token } : {}),
    body: options.scope ? { scope: options.scope } : {},
  });
  if (res.status !== 201) throw new Error(`POST /tickets answered ${res.status}: ${res.text}`);
  return { ticket: res.body.ticket as string, iceServers: res.body.ice_servers as IceServer[] };
}
