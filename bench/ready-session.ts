/** A session started through the API, as a script would start one, shared by the benches that need sessions running. */
import { setTimeout as sleep } from 'node:timers/promises';

/** The JSON body of a 2xx answer; throws with the answer's words otherwise. */
export async function json(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A ready session of `app` with `profile`: its id and its signaling URL. */
export async function readySession(
  apiURL: string,
  app: string,
  profile: string,
): Promise<{ id: string; signaling: string }> {
  const created = await json(`${apiURL}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: app, profile }),
  });
  const id = created.id as string;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${apiURL}/stream/${id}`);
    if (res.status === 200) {
      const body = (await res.json()) as {
        routes: Record<string, { description: string; source_port: number }[]>;
      };
      const port = Object.values(body.routes)
        .flat()
        .find((route) => route.description === 'signaling')?.source_port;
      return { id, signaling: `http://127.0.0.1:${port}` };
    }
    if (res.status === 410 || Date.now() > deadline)
      throw new Error(`${app} did not start: ${await res.text()}`);
    await sleep(200);
  }
}

/** A viewer ticket for session `id` (CONTRACT §14): what a viewer shows on POST /whep. */
export async function viewerTicket(apiURL: string, id: string): Promise<string> {
  const issued = await json(`${apiURL}/stream/${id}/tickets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return issued.ticket as string;
}
