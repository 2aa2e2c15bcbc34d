/**
 * A profile that keeps an application warm (CONTRACT §16), through the portal: the launch is answered
 * ready at once and plays, the service starts a replacement, and the admin page shows it; when every GPU is
 * held, a warm application gives its GPU to a launch that needs one without the person seeing a wait.
 */
import { expect, test } from '@playwright/test';
import { axeViolations } from './support/axe';
import { expectPlaying } from './support/video';
import { startStack, type Stack } from './support/stack';
import { sampleCatalog } from './support/catalogs';
import { marksScript } from './support/whep-test-client';

const catalog = `${sampleCatalog({ width: 640, height: 360, fps: 30 })}
  - id: instant
    name: Instant
    description: One sample application kept warm.
    applications: [{ id: sample, versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 640, max_height: 360, warm: 1 }
`;

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({ catalog });
});

test.afterAll(async () => {
  await stack?.stop();
});

interface Capacity {
  running: number;
  warm: number;
  by_profile: { profile: string; warm: number; warm_target: number }[];
}

async function capacity(): Promise<Capacity> {
  return (await (await fetch(`${stack.apiURL}/admin/capacity`)).json()) as Capacity;
}

test('a warm profile launches ready at once and plays; a replacement is started and shown to admins', async ({
  page,
}) => {
  await expect.poll(async () => (await capacity()).warm, { timeout: 20_000 }).toBe(1);
  // Nobody's session: the warm application is not in anyone's list.
  expect(((await (await fetch(`${stack.apiURL}/stream`)).json()) as { count: number }).count).toBe(0);
  // Ready, not only started: the first POST then answers 200 without waiting.
  await page.waitForTimeout(1_500);

  await page.goto(`${stack.baseURL}/launch?app=sample&profile=instant`);
  await page.getByRole('button', { name: 'Review' }).click();
  const answer = page.waitForResponse(
    (response) =>
      response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/stream',
  );
  await page.getByRole('button', { name: 'Launch' }).click();
  const posted = await answer;
  expect(posted.status()).toBe(200);
  expect(((await posted.json()) as { routes?: unknown }).routes).toBeTruthy();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
  await page.evaluate(marksScript());
  await expectPlaying(page);

  await expect.poll(async () => capacity(), { timeout: 20_000 }).toMatchObject({ running: 1, warm: 1 });
  await page.goto(`${stack.baseURL}/admin/profiles`);
  await expect(page.getByRole('region', { name: 'Capacity' })).toContainText(
    '1 of 2 GPUs in use by sessions, 1 held by warm applications, 0 free; 0 waiting.',
  );
  await expect(page.getByRole('region', { name: 'Capacity' })).toContainText(
    'instant: 1 running, 0 waiting, 1 of 1 warm',
  );
});

test("a warm application yields its GPU to a lone person's launch that needs it: no waiting shown", async ({
  page,
}) => {
  // One person's session on one GPU, the warm application on the other: every GPU is held.
  const listed = (await (await fetch(`${stack.apiURL}/stream`)).json()) as { items: { id: string }[] };
  for (const { id } of listed.items) await fetch(`${stack.apiURL}/stream/${id}`, { method: 'DELETE' });
  const first = await fetch(`${stack.apiURL}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'sample', version: '1.0.0', profile: 'small' }),
  });
  expect(first.status).toBeLessThan(300);
  await expect.poll(async () => capacity(), { timeout: 20_000 }).toMatchObject({ running: 1, warm: 1 });

  await page.goto(`${stack.baseURL}/launch?app=sample&profile=small`);
  // Anything the page ever says about waiting for a GPU, from the launch on.
  await page.evaluate(() => {
    (window as unknown as { waited: boolean }).waited = false;
    new MutationObserver(() => {
      if (document.body.innerText.includes('Waiting for a free GPU'))
        (window as unknown as { waited: boolean }).waited = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole('button', { name: 'Review' }).click();
  const answer = page.waitForResponse(
    (response) =>
      response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/stream',
  );
  await page.getByRole('button', { name: 'Launch' }).click();
  const posted = (await (await answer).json()) as { status: { message: string } };
  expect(posted.status.message).not.toMatch(/Waiting/);
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
  await page.evaluate(marksScript());
  await expectPlaying(page);
  expect(await page.evaluate(() => (window as unknown as { waited: boolean }).waited)).toBe(false);
  // The warm application comes back once a GPU is free again.
  const mine = (await (await fetch(`${stack.apiURL}/stream`)).json()) as { items: { id: string }[] };
  for (const { id } of mine.items) await fetch(`${stack.apiURL}/stream/${id}`, { method: 'DELETE' });
  await expect.poll(async () => (await capacity()).warm, { timeout: 20_000 }).toBe(1);

  // The admin's health view says so, in green, and reads as it looks.
  await page.goto(`${stack.baseURL}/admin/capacity`);
  const health = page.getByRole('region', { name: 'Health' });
  const check = (name: string) => health.getByRole('listitem').filter({ hasText: name });
  await expect(check('Warm applications')).toHaveAttribute('data-level', 'ok');
  await expect(check('Launches in the last hour')).toHaveAttribute('data-level', 'ok');
  await expect(check('Sessions can start')).toContainText('1 of 2 GPUs free, nobody waiting.');
  expect(await axeViolations(page)).toEqual([]);
});
